// kbench/decisions/sweep.hpp: the shapes a case runs at, chosen at run time without recompiling. HIP-free.
//
//   --shape rows=4096,cols=8192          runs the cases whose shapes have exactly these dimensions at it
//                                        (repeatable; replaces their registered shapes)
//   --shape rows=4096,cols=8192,eps=1e-5 ... and parameters (kernel_case::param), for cases whose shapes have
//                                        them; a parameter is never swept
//   --axis cols=1024:65536:x2            every shape of a case that has `cols`, at 1024, 2048, ... 65536
//   --axis cols=1024:4096:+1024          ... at 1024, 2048, 3072, 4096
//   --axis cols=1000,1531,4096           ... at those sizes
//
// A case's declaration checks every such shape like a registered one (a dimension it never asks for is
// an error too), before anything runs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../contract/error.hpp"
#include "../contract/shape.hpp"

namespace kbench {

struct axis_values {
  std::string name;
  std::vector<std::int64_t> values;
};

// What the command line asks for: whole shapes, and axes swept over the shapes.
struct shape_request {
  std::vector<kbench::shape> shapes;
  std::vector<axis_values> axes;
  [[nodiscard]] bool empty() const { return shapes.empty() && axes.empty(); }
};

namespace detail {

inline std::int64_t parse_size(const std::string& text, const std::string& context) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used, 10);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v <= 0) {
    throw usage_error(context + ": '" + text + "' is not a size (a whole number > 0)");
  }
  return v;
}

inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  for (std::size_t begin = 0;;) {
    const std::size_t end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

// "name=value" into its two halves.
inline std::pair<std::string, std::string> name_and_value(const std::string& text, const std::string& context) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw usage_error(context + ": '" + text + "' is not name=value");
  }
  return {text.substr(0, equals), text.substr(equals + 1)};
}

}  // namespace detail

// "rows=4096,cols=8192" (or with '/' between the dimensions, as reports print shapes). A value that is no
// whole number (eps=1e-5) is a parameter; a whole one stays a size until the case's shapes say it is a
// parameter (shapes_to_run()).
[[nodiscard]] inline kbench::shape parse_shape(const std::string& text) {
  const std::string context = "--shape '" + text + "'";
  std::string normalized = text;
  for (char& c : normalized) c = c == '/' ? ',' : c;
  std::vector<kbench::shape::dimension> dims;
  std::vector<kbench::shape::parameter> params;
  for (const std::string& part : detail::split(normalized, ',')) {
    const auto [name, value] = detail::name_and_value(part, context);
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    const bool whole = value.find_first_not_of("0123456789") == std::string::npos;
    if (!whole && end == value.c_str() + value.size() && std::isfinite(number)) {
      params.emplace_back(name, number);
    } else {
      dims.emplace_back(name, detail::parse_size(value, context));
    }
  }
  return kbench::shape(dims, params);  // a name given twice is a usage_error there
}

// "cols=1024:65536:x2", "cols=1024:4096:+1024" or "cols=1000,1531,4096".
[[nodiscard]] inline axis_values parse_axis(const std::string& text) {
  const std::string context = "--axis '" + text + "'";
  const auto [name, spec] = detail::name_and_value(text, context);
  axis_values axis{name, {}};
  const std::vector<std::string> range = detail::split(spec, ':');
  if (range.size() == 1) {
    for (const std::string& v : detail::split(spec, ',')) axis.values.push_back(detail::parse_size(v, context));
    return axis;
  }
  if (range.size() != 3 || range[2].size() < 2 || (range[2][0] != 'x' && range[2][0] != '+')) {
    throw usage_error(context + ": a range is start:stop:xFACTOR or start:stop:+STEP");
  }
  const std::int64_t start = detail::parse_size(range[0], context), stop = detail::parse_size(range[1], context);
  const std::int64_t by = detail::parse_size(range[2].substr(1), context);
  const bool geometric = range[2][0] == 'x';
  if (stop < start) throw usage_error(context + ": the range ends before it starts");
  if (geometric && by < 2) throw usage_error(context + ": a factor must be 2 or more");
  for (std::int64_t v = start; v <= stop; v = geometric ? v * by : v + by) {
    axis.values.push_back(v);
    if (axis.values.size() > 4096) throw usage_error(context + ": more than 4096 sizes");
    if (geometric ? v > stop / by : v > stop - by) break;  // the next step would pass stop (or overflow)
  }
  return axis;
}

namespace detail {

// The names of a shape's dimensions and parameters.
inline std::set<std::string> dimension_names(const kbench::shape& s) {
  std::set<std::string> names;
  for (const auto& d : s.dims()) names.insert(d.first);
  for (const auto& p : s.parameters()) names.insert(p.first);
  return names;
}

// Requested shape `s` with each value a size or a parameter as in registered shape `like` (which has the
// same names): "eps=1" is a parameter where the case's shapes give eps one. A size given as no whole number
// is a usage error.
inline kbench::shape typed_like(const kbench::shape& s, const kbench::shape& like) {
  auto is_parameter = [&like](const std::string& name) {
    for (const auto& p : like.parameters()) {
      if (p.first == name) return true;
    }
    return false;
  };
  std::vector<kbench::shape::dimension> dims;
  std::vector<kbench::shape::parameter> params;
  for (const auto& given : s.dims()) {
    if (is_parameter(given.first)) {
      params.emplace_back(given.first, static_cast<double>(given.second));
    } else {
      dims.push_back(given);
    }
  }
  for (const auto& given : s.parameters()) {
    if (!is_parameter(given.first)) {
      throw usage_error("--shape {" + s.to_string() + "}: '" + given.first + "' is a size (a whole number > 0)");
    }
    params.push_back(given);
  }
  return kbench::shape(dims, params);
}

}  // namespace detail

// The shapes a case registered at `registered` runs at under `request`: the requested shapes with the
// same dimensions as one of its own (or its own, when none are requested), then each axis it has swept
// over them, without repeats, in order.
[[nodiscard]] inline std::vector<kbench::shape> shapes_to_run(const std::vector<kbench::shape>& registered,
                                                              const shape_request& request) {
  std::vector<kbench::shape> base;
  if (request.shapes.empty()) {
    base = registered;
  } else {
    for (const kbench::shape& s : request.shapes) {
      for (const kbench::shape& r : registered) {
        if (detail::dimension_names(s) == detail::dimension_names(r)) {
          base.push_back(detail::typed_like(s, r));
          break;
        }
      }
    }
  }
  for (const axis_values& axis : request.axes) {
    std::vector<kbench::shape> swept;
    for (const kbench::shape& s : base) {
      if (!s.has(axis.name)) {
        swept.push_back(s);
        continue;
      }
      for (const std::int64_t v : axis.values) {
        std::vector<kbench::shape::dimension> dims = s.dims();
        for (auto& d : dims) d.second = d.first == axis.name ? v : d.second;
        swept.emplace_back(dims, s.parameters());
      }
    }
    base = std::move(swept);
  }
  std::vector<kbench::shape> unique;
  std::set<std::string> seen;
  for (const kbench::shape& s : base) {
    if (seen.insert(s.to_string()).second) unique.push_back(s);
  }
  return unique;
}

}  // namespace kbench
