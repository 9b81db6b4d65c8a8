// Catch2's main for the host-side unit tests (Catch2 2.x; Catch2 3 brings its own with Catch2WithMain).
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
#else
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
