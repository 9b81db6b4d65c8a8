// studies/compile-floor/lightest_contract.hpp: the lightest contract a test file could see, for measuring
// only (nothing links against it): kbench's verbs as declarations whose bodies live elsewhere, an opaque
// declaration, thin templates, and none of <string>, <vector>, <memory>, <optional>. The platform header
// and the launch check stay, since the kernels use them. Names end in _m so they never meet kbench's own.
#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>
namespace kbench {
namespace detail {
struct binding { void* device; double* host; std::size_t size; bool absent; };
struct declared_case;
template <class Sig> class callable;
template <class R, class... A> class callable<R(A...)> {
 public:
  callable() = default;
  template <class F> callable(F f) : obj_(new F(std::move(f))), call_([](void* o, A... a) -> R { return (*static_cast<F*>(o))(a...); }),
      drop_([](void* o) { delete static_cast<F*>(o); }) {}
  callable(callable&& o) noexcept : obj_(o.obj_), call_(o.call_), drop_(o.drop_) { o.obj_ = nullptr; }
  ~callable() { if (obj_) drop_(obj_); }
  R operator()(A... a) const { return call_(obj_, a...); }
 private:
  void* obj_ = nullptr; R (*call_)(void*, A...) = nullptr; void (*drop_)(void*) = nullptr;
};
}
struct distribution_m { int kind; double a, b; };
inline distribution_m uniform_m(double a, double b) { return {0, a, b}; }
namespace tolm { struct ulp { int n; }; }
template <class T> class input_ref { public: explicit input_ref(detail::binding* b) : b_(b) {} operator const T*() const { return static_cast<const T*>(b_->device); } private: detail::binding* b_; };
template <class T> class output_ref { public: explicit output_ref(detail::binding* b) : b_(b) {} operator T*() const { return static_cast<T*>(b_->device); } private: detail::binding* b_; };
class resource_bound_m { public: resource_bound_m& spills_none(); resource_bound_m& scratch_at_most(int); resource_bound_m& waves_at_least(int); resource_bound_m& warps_at_least(int); };
class kernel_case_m {
 public:
  std::int64_t dim(const char* name) const;
  template <class T> input_ref<T> input(const char* name, std::initializer_list<std::int64_t> e, distribution_m d) { return input_ref<T>(add_input(name, dtype_v<T>, e, d)); }
  template <class T> output_ref<T> output(const char* name, std::initializer_list<std::int64_t> e) { return output_ref<T>(add_output(name, dtype_v<T>, e)); }
  void reference(detail::callable<void(hipStream_t)> f);
  void optimized(detail::callable<void(hipStream_t)> f);
  void tolerance(tolm::ulp u);
  void bytes_moved(double);
  void flops(double, dtype = dtype::f32);
  resource_bound_m& expect_resources(const char*, const char* target = "");
 private:
  detail::binding* add_input(const char*, dtype, std::initializer_list<std::int64_t>, distribution_m);
  detail::binding* add_output(const char*, dtype, std::initializer_list<std::int64_t>);
  detail::declared_case* declared_;
};
struct dimension { const char* name; std::int64_t value; };
class case_registration_m { public: case_registration_m& shape(std::initializer_list<dimension>); };
case_registration_m& register_case_m(const char*, void (*)(kernel_case_m&), const char*, int);
}
#define KBENCH_REGISTER_M(...) [[maybe_unused]] static ::kbench::case_registration_m& kbench_reg_##__LINE__ = ::kbench::register_case_m(#__VA_ARGS__, &__VA_ARGS__, __FILE__, __LINE__)
