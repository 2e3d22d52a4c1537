// How a registry entry turns checked AlgorithmParams into its algorithm's typed options: each
// parameter is bound to a field of the options, and the entry's default options give every
// default. The entry's ParamInfo list (for ListAlgorithms and CheckAlgorithm) is derived from the
// bindings, so a parameter's name, type, range and default are written once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/registry/params.h"

namespace resched {

template <class Options>
struct ParamBinding {
  ParamInfo info;  // default_value is filled from the entry's default options
  std::function<void(Options&, double)> set;
  std::function<double(const Options&)> get;
};

// Binds the parameter `name` to the field `access` picks (called with an Options& or a const
// Options&, it returns a reference to the field), typed by the field: a double is kReal, an int or
// a std::uint64_t kInteger, a bool kFlag.
template <class Options, class Access>
ParamBinding<Options> BindField(std::string name, std::string description, double min, double max,
                                Access access) {
  using Field = std::remove_reference_t<std::invoke_result_t<Access, Options&>>;
  ParamType type = ParamType::kReal;
  if constexpr (std::is_same_v<Field, bool>) {
    type = ParamType::kFlag;
  } else if constexpr (std::is_integral_v<Field>) {
    type = ParamType::kInteger;
  } else {
    static_assert(std::is_same_v<Field, double>, "a parameter is a double, an integer or a bool");
  }
  return ParamBinding<Options>{
      ParamInfo{std::move(name), std::move(description), 0, min, max, type, {}},
      [access](Options& options, double value) {
        if constexpr (std::is_same_v<Field, bool>) {
          access(options) = value != 0;
        } else {
          access(options) = static_cast<Field>(value);
        }
      },
      [access](const Options& options) { return static_cast<double>(access(options)); }};
}

// The same for a field of Options itself.
template <class Options, class Field>
ParamBinding<Options> Bind(std::string name, std::string description, double min, double max,
                           Field Options::*member) {
  return BindField<Options>(
      std::move(name), std::move(description), min,
      max, [member](auto& options) -> auto& { return options.*member; });
}

// Binds the parameter `name` to an enum field that `access` picks: one of `choices`, whose
// names `resched algorithms` lists; the wire's value is the choice's index (the enum's value).
template <class Options, class Access>
ParamBinding<Options> BindChoice(std::string name, std::string description,
                                 std::vector<std::string> choices, Access access) {
  using Field = std::remove_reference_t<std::invoke_result_t<Access, Options&>>;
  static_assert(std::is_enum_v<Field>, "a choice is an enum whose values index its names");
  const double max = static_cast<double>(choices.size()) - 1;
  return ParamBinding<Options>{
      ParamInfo{std::move(name), std::move(description), 0, 0, max, ParamType::kChoice,
                std::move(choices)},
      [access](Options& options, double value) { access(options) = static_cast<Field>(value); },
      [access](const Options& options) { return static_cast<double>(access(options)); }};
}

// The ParamInfo list of `bindings`, each default read from `defaults`.
template <class Options>
std::vector<ParamInfo> ParamInfos(const std::vector<ParamBinding<Options>>& bindings,
                                  const Options& defaults) {
  std::vector<ParamInfo> infos;
  for (const ParamBinding<Options>& binding : bindings) {
    infos.push_back(binding.info);
    infos.back().default_value = binding.get(defaults);
  }
  return infos;
}

// `defaults` with each parameter `values` gives set: the values CheckAlgorithm accepted.
template <class Options>
Options FillOptions(const std::vector<ParamBinding<Options>>& bindings, Options defaults,
                    const AlgorithmParams& values) {
  for (const ParamBinding<Options>& binding : bindings) {
    if (auto it = values.find(binding.info.name); it != values.end()) {
      binding.set(defaults, it->second);
    }
  }
  return defaults;
}

}  // namespace resched
