#!/usr/bin/env bash
# The CMake flags llama-cpp-python builds llama.cpp with: this CPU's vector extensions, named one by
# one, instead of -march=native. Native also compiles AMX tile code wherever the CPU lists AMX, and a
# virtual machine may list it without enabling it: there llama.cpp died of a general protection fault
# at `ldtilecfg` in every multi-threaded request (the llama.cpp server tests, 2026-12-06).
set -euo pipefail
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { [[ " $flags " == *" $1 "* ]]; }
on() { printf ' -D%s=ON' "$@"; }
args="-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
has avx && args+=$(on GGML_AVX)
has avx2 && args+=$(on GGML_AVX2)
has fma && args+=$(on GGML_FMA)
has f16c && args+=$(on GGML_F16C)
has bmi2 && args+=$(on GGML_BMI2)
has avx_vnni && args+=$(on GGML_AVX_VNNI)
if has avx512f && has avx512bw && has avx512vl && has avx512dq && has avx512cd; then
  args+=$(on GGML_AVX512)
  has avx512vbmi && args+=$(on GGML_AVX512_VBMI)
  has avx512_vnni && args+=$(on GGML_AVX512_VNNI)
  has avx512_bf16 && args+=$(on GGML_AVX512_BF16)
fi
echo "$args"
