// Catch2's main for the host-side unit tests.
#if KBENCH_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
#else
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
