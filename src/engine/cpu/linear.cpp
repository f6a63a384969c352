// make_cpu_linear: the one dispatch point from (weight, precision) to a CPU Linear kernel.
#include "engine/cpu/linear.h"

#include "core/error.h"
#include "engine/cpu/gemv_half.h"
#include "engine/cpu/gemv_int8_llm.h"
#include "engine/cpu/gemv_int8_wo.h"
#include "engine/cpu/gemv_nf4.h"
#include "engine/cpu/tensor_convert.h"

namespace ec::engine::cpu {

std::unique_ptr<CpuLinear> make_cpu_linear(const model::Tensor& weight,
                                           const std::optional<model::Tensor>& bias,
                                           Precision precision, ThreadPool& pool) {
  EC_CHECK(weight.shape.size() == 2,
           "tensor {}: a Linear weight must be 2-D [out, in], got {} dims", weight.name,
           weight.shape.size());
  std::vector<float> bias_f32;
  if (bias) {
    check_shape(*bias, {weight.shape[0]});
    bias_f32 = tensor_to_f32(*bias);
  }
  switch (precision) {
    case Precision::fp16:
      return make_gemv_half(convert_tensor(weight, DType::f16), std::move(bias_f32), HalfKind::f16,
                            pool);
    case Precision::bf16:
      return make_gemv_half(convert_tensor(weight, DType::bf16), std::move(bias_f32),
                            HalfKind::bf16, pool);
    case Precision::int8_llm:
      return make_gemv_int8_llm(weight, std::move(bias_f32), pool);
    case Precision::int8_wo:
      return make_gemv_int8_wo(weight, std::move(bias_f32), pool);
    case Precision::nf4:
      return make_gemv_nf4(weight, std::move(bias_f32), pool);
    case Precision::nf4_dq:
      return make_gemv_nf4_dq(weight, std::move(bias_f32), pool);
  }
  fail("precision {} not implemented yet on the CPU backend (weight {})", precision_name(precision),
       weight.name);
}

}  // namespace ec::engine::cpu
