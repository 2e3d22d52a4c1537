#include "client/models.h"

#include <array>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/durations.h"

namespace resched::cli {
namespace {

using resched::v1::RuntimeModel;

absl::Status Bad(absl::string_view flag, absl::string_view value, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, " ", value, ": ", why));
}

// Reads one ':'-separated field; all return false with `*error` set on a bad field.
struct Fields {
  absl::string_view flag, value;
  std::vector<absl::string_view> parts;
  absl::Status error;

  bool Int(size_t i, absl::string_view what, int32_t* out) {
    if (!error.ok()) return false;
    if (!absl::SimpleAtoi(parts[i], out))
      error = Bad(flag, value, absl::StrCat(what, " \"", parts[i], "\" is not an integer"));
    return error.ok();
  }
  bool Double(size_t i, absl::string_view what, double* out) {
    if (!error.ok()) return false;
    if (!absl::SimpleAtod(parts[i], out))
      error = Bad(flag, value, absl::StrCat(what, " \"", parts[i], "\" is not a number"));
    return error.ok();
  }
  bool Duration(size_t i, google::protobuf::Duration* out) {
    if (!error.ok()) return false;
    absl::StatusOr<int64_t> d = ParseDuration(parts[i]);
    if (!d.ok()) {
      error = Bad(flag, value, d.status().message());
    } else {
      *out = ToProtoDuration(*d);
    }
    return error.ok();
  }
};

absl::Status ParseWidths(Fields& f, size_t first, int32_t* k_min, int32_t* k_max) {
  if (f.parts.size() > first) f.Int(first, "KMIN", k_min);
  if (f.parts.size() > first + 1) f.Int(first + 1, "KMAX", k_max);
  return f.error;
}

std::string Widths(int32_t k_min, int32_t k_max) {
  return absl::StrCat(" k=", k_min > 0 ? k_min : 1, "..", k_max > 0 ? absl::StrCat(k_max) : "P");
}

std::string Dur(const google::protobuf::Duration& d) { return FormatDuration(ToMicros(d)); }

}  // namespace

absl::Span<const absl::string_view> ModelFlagNames() {
  static constexpr std::array<absl::string_view, 6> kNames = {"rigid", "amdahl", "downey",
                                                              "table", "pow2",   "ceil"};
  return kNames;
}

absl::Status ParseModelFlag(absl::string_view flag, absl::string_view value, RuntimeModel* model) {
  model->Clear();
  Fields f{flag, value, absl::StrSplit(value, ':'), absl::OkStatus()};
  auto arity = [&](size_t lo, size_t hi, absl::string_view form) {
    if (f.parts.size() < lo || f.parts.size() > hi)
      f.error = Bad(flag, value, absl::StrCat("expected ", form));
    return f.error.ok();
  };
  if (flag == "rigid") {
    if (!arity(2, 2, "K:DURATION, e.g. 4:1h")) return f.error;
    auto* m = model->mutable_rigid();
    int32_t k = 0;
    f.Int(0, "K", &k);
    m->set_k(k);
    f.Duration(1, m->mutable_time());
    return f.error;
  }
  if (flag == "amdahl") {
    if (!arity(2, 4, "T1:ALPHA[:KMIN[:KMAX]], e.g. 2h:0.1")) return f.error;
    auto* m = model->mutable_amdahl();
    double alpha = 0;
    int32_t k_min = 0, k_max = 0;
    f.Duration(0, m->mutable_t1());
    f.Double(1, "ALPHA", &alpha);
    ParseWidths(f, 2, &k_min, &k_max).IgnoreError();
    m->set_alpha(alpha);
    m->set_k_min(k_min);
    m->set_k_max(k_max);
    return f.error;
  }
  if (flag == "downey") {
    if (!arity(3, 5, "T1:A:SIGMA[:KMIN[:KMAX]], e.g. 2h:16:0.5")) return f.error;
    auto* m = model->mutable_downey();
    double a = 0, sigma = 0;
    int32_t k_min = 0, k_max = 0;
    f.Duration(0, m->mutable_t1());
    f.Double(1, "A", &a);
    f.Double(2, "SIGMA", &sigma);
    ParseWidths(f, 3, &k_min, &k_max).IgnoreError();
    m->set_a(a);
    m->set_sigma(sigma);
    m->set_k_min(k_min);
    m->set_k_max(k_max);
    return f.error;
  }
  if (flag == "ceil") {
    if (!arity(2, 2, "REQPROCS:DURATION, e.g. 8:30m")) return f.error;
    auto* m = model->mutable_ceil();
    int32_t req = 0;
    f.Int(0, "REQPROCS", &req);
    m->set_req_procs(req);
    f.Duration(1, m->mutable_req_time());
    return f.error;
  }
  if (flag == "table") {
    auto* m = model->mutable_table();
    for (absl::string_view entry : absl::StrSplit(value, ',')) {
      Fields e{flag, value, absl::StrSplit(entry, ':'), absl::OkStatus()};
      if (e.parts.size() != 2)
        return Bad(flag, value, "expected K:DURATION,K:DURATION,..., e.g. 1:4h,2:2h30m,4:1h40m");
      auto* row = m->add_entries();
      int32_t k = 0;
      e.Int(0, "K", &k);
      row->set_k(k);
      e.Duration(1, row->mutable_time());
      if (!e.error.ok()) return e.error;
    }
    return absl::OkStatus();
  }
  if (flag == "pow2") {
    auto* m = model->mutable_power_of_two();
    std::vector<absl::string_view> times = absl::StrSplit(value, ',');
    Fields e{flag, value, times, absl::OkStatus()};
    for (size_t i = 0; i < times.size(); ++i) e.Duration(i, m->add_times());
    return e.error;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown model flag --", flag));
}

std::string DescribeModel(const RuntimeModel& model) {
  switch (model.kind_case()) {
    case RuntimeModel::kRigid:
      return absl::StrCat("rigid k=", model.rigid().k(), " t=", Dur(model.rigid().time()));
    case RuntimeModel::kAmdahl: {
      const auto& m = model.amdahl();
      return absl::StrCat("amdahl t1=", Dur(m.t1()), " alpha=", m.alpha(),
                          Widths(m.k_min(), m.k_max()));
    }
    case RuntimeModel::kDowney: {
      const auto& m = model.downey();
      return absl::StrCat("downey t1=", Dur(m.t1()), " A=", m.a(), " sigma=", m.sigma(),
                          Widths(m.k_min(), m.k_max()));
    }
    case RuntimeModel::kTable: {
      std::vector<std::string> entries;
      for (const auto& e : model.table().entries())
        entries.push_back(absl::StrCat(e.k(), ":", Dur(e.time())));
      return absl::StrCat("table ", absl::StrJoin(entries, ","));
    }
    case RuntimeModel::kPowerOfTwo: {
      std::vector<std::string> times;
      for (const auto& t : model.power_of_two().times()) times.push_back(Dur(t));
      return absl::StrCat("pow2 ", absl::StrJoin(times, ","));
    }
    case RuntimeModel::kCeil:
      return absl::StrCat("ceil req_procs=", model.ceil().req_procs(),
                          " req_time=", Dur(model.ceil().req_time()));
    case RuntimeModel::kCommunication: {
      const auto& m = model.communication();
      return absl::StrCat("communication flops=", m.flops(), " n=", m.matrix_size(),
                          Widths(m.k_min(), m.k_max()));
    }
    case RuntimeModel::KIND_NOT_SET:
      break;
  }
  return "-";
}

}  // namespace resched::cli
