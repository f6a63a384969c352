// The NF4 / NF4-DQ policies of the batch-1 GEMV kernel (device code; included by gemv_nf4.cu and
// by the NF4 probe bench). 32 codes per 16-byte load. Each code byte (two nibbles, first element
// high) is decoded by one shared-memory read of a 256-entry table of half2 pairs, replicated per
// lane so no two lanes of a warp ever share a bank; x is staged in fp16; the 32 products of a
// chunk are taken in fp16 and summed in FP32, then scaled once by the chunk's block absmax (fp32
// for nf4, decoded from its dynamic-map byte for nf4-dq). The codes are held as fp16 there, as
// bitsandbytes' kernel holds its quant_map.
#pragma once

#include <cuda_fp16.h>

#include <algorithm>

#include "engine/cuda/gemv_kernel.cuh"
#include "quant/nf4.h"
#include "quant/nf4_dq.h"

namespace ec::engine::cuda::nf4 {

static __constant__ float kCode[16] = {
    quant::kNf4Code[0],  quant::kNf4Code[1],  quant::kNf4Code[2],  quant::kNf4Code[3],
    quant::kNf4Code[4],  quant::kNf4Code[5],  quant::kNf4Code[6],  quant::kNf4Code[7],
    quant::kNf4Code[8],  quant::kNf4Code[9],  quant::kNf4Code[10], quant::kNf4Code[11],
    quant::kNf4Code[12], quant::kNf4Code[13], quant::kNf4Code[14], quant::kNf4Code[15]};

// Entry [byte][lane] of the pair table is at byte·256 + lane·4: one byte_perm of the code word
// and the lane's offset gives a read's address (the byte as the address's second byte, lane·4 as
// its first), where rows 128 bytes apart took a byte_perm and a shift-add. The upper half of each
// 256-byte row holds staged x (x_unit_offset), eight 16-byte units a row, and rows continue past
// the table's 256 while x lasts: x of up to 16,384 features costs no shared memory beyond the
// table's 64 KB, and a block needs 74 KB at 18,944 (qwen2-7b's down), three blocks per SM.
constexpr int kPairRowBytes = 256;

// TableAt: where the pair table starts in the kernel's shared memory (a policy's own tables
// come first).
template <uint32_t TableAt>
struct Nf4Common {
  static constexpr int kElems = 32;
  static constexpr int kBitsPerWeight = 4;

  // Entry [byte][lane] = (code[byte >> 4], code[byte & 15]). Thread (warp w, lane) writes the
  // bytes w + 8k, k < 32, whose high nibble is k / 2 and low nibble w + 8·(k % 2): every value
  // comes from registers, and the 32 stores are independent (a loop reading the constant table
  // for each entry cost about 2 µs per block, as much as a whole small GEMV's weights).
  __device__ static void init_pairs(unsigned char* fsmem) {
    static_assert(detail::kGemvThreads == 256, "the table is laid out for 8 warps of 32");
    const int w = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const __half low[2] = {__float2half_rn(kCode[w]), __float2half_rn(kCode[8 + w])};
#pragma unroll
    for (int k = 0; k < 32; ++k) {
      *reinterpret_cast<__half2*>(fsmem + TableAt + (w + 8 * k) * kPairRowBytes + lane * 4) =
          __halves2half2(__float2half_rn(kCode[k >> 1]), low[k & 1]);
    }
  }

  // x is staged in fp16 (x_bytes): the 8 elements of code word i are 16-byte unit i of the chunk.
  static constexpr bool kXHalf = true;
  static constexpr bool kShortSteps = true;
  static constexpr int kStageLoads = 4;  // stage_x: 4 float4 of x in flight per thread

  // Unit s of staged x: the upper half of table row s / 8 (rows past 255 hold only x). A chunk's
  // four units (s = 4c + k) share one row, so a dot reads them as before, and s mod 8 still picks
  // the bank group, as x_slot wants.
  __device__ static uint32_t x_unit_offset(int s) {
    const auto u = static_cast<uint32_t>(s);
    return TableAt + (u >> 3) * kPairRowBytes + kPairRowBytes / 2 + (u & 7u) * 16u;
  }
  // The kernel's shared memory for x_bytes of staged x: the policy's tables, then 256 rows or as
  // many as x needs.
  static size_t shared_bytes(size_t x_bytes) {
    const size_t rows = (x_bytes / 16 + 7) / 8;
    return TableAt + std::max<size_t>(256, rows) * kPairRowBytes;
  }

  // What pair() needs of the table: its shared-memory address (the same in every thread, so
  // ptxas can fold it into the read) and this lane's offset into a row.
  struct LaneTable {
    uint32_t base;
    uint32_t lane_offset;
  };
  __device__ static LaneTable lane_table(const unsigned char* fsmem, int lane) {
    return {static_cast<uint32_t>(__cvta_generic_to_shared(fsmem)) + TableAt,
            static_cast<uint32_t>(lane) * 4};
  }

  // The code pair of byte k of v for this lane: one byte_perm (byte k of v as byte 1, the lane's
  // offset as byte 0, zeros above) and one shared-memory read, [register + table base]. Indexing
  // a __half2 pointer cost four integer instructions per read, and rows 128 bytes apart
  // two; one took the 7B gate_up GEMV from 30.9 to 29.5 µs on the H200.
  __device__ static __half2 pair(LaneTable t, uint32_t v, unsigned k) {
    const uint32_t at = t.base + __byte_perm(v, t.lane_offset, 0x5504u | (k << 4));
    uint32_t bits;
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(bits) : "r"(at));
    return *reinterpret_cast<const __half2*>(&bits);
  }

  // Products in fp16 (a code pair times an x pair, HFMA2), summed four deep per half lane, then
  // added in FP32: half the instructions of converting every code to FP32, and like bitsandbytes'
  // kernel, which multiplies in fp16 and accumulates in FP32. The code pair of byte k of word v is
  // pair_of(v, k): the table (dot), or a stand-in in the probe bench (bench/probe).
  template <class PairOf>
  __device__ static float dot_pairs(uint4 w, const float4* x4, int rot, PairOf pair_of) {
    const auto* xh = reinterpret_cast<const uint4*>(x4);
    const uint32_t words[4] = {w.x, w.y, w.z, w.w};
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint32_t v = words[i];
      const uint4 xu = xh[i ^ rot];
      const __half2* x2 = reinterpret_cast<const __half2*>(&xu);
      __half2 h = __hmul2(pair_of(v, 0u), x2[0]);
      h = __hfma2(pair_of(v, 1u), x2[1], h);
      h = __hfma2(pair_of(v, 2u), x2[2], h);
      h = __hfma2(pair_of(v, 3u), x2[3], h);
      const float2 f = __half22float2(h);
      s += f.x + f.y;
    }
    return s;
  }

  __device__ static float dot(uint4 w, const float4* x4, int rot, const unsigned char* fsmem,
                              int lane) {
    const LaneTable table = lane_table(fsmem, lane);
    return dot_pairs(w, x4, rot, [table](uint32_t v, unsigned k) { return pair(table, v, k); });
  }

  __device__ static float finish(const GemvSegment& s, int row, float acc) {
    return s.bias != nullptr ? acc + s.bias[row] : acc;
  }

  // A chunk of 32 starts at a multiple of 32 of the flattened weight (cols % 32 == 0), so it lies
  // inside one block of 64: row·(cols/32) + c in chunks, halved. In 32 bits, unsigned (the
  // division is a shift); gemv() refuses a segment of more than 2^32 chunks. The 64-bit index
  // took about nine integer instructions per scale load, ~7 % of the 7B gate_up GEMV's (ncu);
  // in 32 bits that GEMV ran 2-3 % faster alone.
  __device__ static uint32_t block_of(int row, int cols, int c) {
    static_assert(quant::kNf4BlockSize == 64, "two chunks of 32 per block");
    return (static_cast<uint32_t>(row) * static_cast<uint32_t>(cols / 32) +
            static_cast<uint32_t>(c)) >>
           1;
  }
};

struct Nf4Policy : Nf4Common<0> {
  __device__ static void init_shared(const GemvArgs&, unsigned char* fsmem) { init_pairs(fsmem); }
  // The raw scales from block b0 on (raw_from): a pointer, so that the block offsets the whole-row
  // and row-pass kernels know at compile time fold into the loads.
  struct RawFrom {
    const float* scales;
  };
  __device__ static RawFrom raw_from(const GemvSegment& s, uint32_t b0) { return {s.scales + b0}; }
  // Block b0 + k's raw scale (k may be negative: a lane past a row's end loads within the row).
  __device__ static float2 raw_at(const RawFrom& r, int k) {
    return make_float2(__ldg(r.scales + k), 0.0f);
  }
  // The raw scales from block b0 + k on.
  __device__ static RawFrom raw_from(const RawFrom& r, int k) { return {r.scales + k}; }
  __device__ static float2 raw(const GemvSegment& s, int row, int cols, int c) {
    return raw_at(raw_from(s, block_of(row, cols, c)), 0);
  }
  __device__ static float scale(float2 raw, const GemvSegment&, const unsigned char*) {
    return raw.x;
  }
};

// The absmax map (256 fp32) comes first, then the pair table.
struct Nf4DqPolicy : Nf4Common<256 * 4> {
  __device__ static void init_shared(const GemvArgs& a, unsigned char* fsmem) {
    init_pairs(fsmem);
    auto* map = reinterpret_cast<float*>(fsmem);
    for (int i = threadIdx.x; i < 256; i += blockDim.x) map[i] = a.seg[0].absmax_map[i];
  }
  // The absmax byte and its 256-block scale come with the weights; the map lookup waits for the
  // shared-memory table: code[q_b] · scale[b / 256] + offset (quant::Nf4DqTensor::block_absmax).
  struct RawFrom {
    const uint8_t* codes;  // block b0's absmax byte
    const float* scales;   // the segment's 256-block scales
    uint32_t b0;
  };
  __device__ static RawFrom raw_from(const GemvSegment& s, uint32_t b0) {
    return {s.absmax_codes + b0, s.scales, b0};
  }
  __device__ static float2 raw_at(const RawFrom& r, int k) {
    const uint32_t b = r.b0 + static_cast<uint32_t>(k);  // modulo 2^32: b0 + k for k < 0 too
    return make_float2(__int_as_float(__ldg(r.codes + k)),
                       __ldg(r.scales + b / static_cast<uint32_t>(quant::kNf4DqBlockSize)));
  }
  __device__ static RawFrom raw_from(const RawFrom& r, int k) {
    return {r.codes + k, r.scales, r.b0 + static_cast<uint32_t>(k)};
  }
  __device__ static float2 raw(const GemvSegment& s, int row, int cols, int c) {
    return raw_at(raw_from(s, block_of(row, cols, c)), 0);
  }
  __device__ static float scale(float2 raw, const GemvSegment& s, const unsigned char* fsmem) {
    const auto* map = reinterpret_cast<const float*>(fsmem);
    return __fadd_rn(__fmul_rn(map[__float_as_int(raw.x)], raw.y), s.absmax_offset);
  }
};

}  // namespace ec::engine::cuda::nf4
