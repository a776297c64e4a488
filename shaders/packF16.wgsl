// f32 ⇄ packed f16 (two per u32, low half = even element) for frozen weights. Conversions are
// written with integer ops on the bit patterns, not pack2x16float / unpack2x16float, because WGSL
// leaves their rounding and subnormal handling to the implementation: this pack rounds to nearest,
// ties to even, overflow → ±Inf, NaN stays NaN (src/model/halfFloat.ts float32ToF16Bits, bit for
// bit), and the unpack is exact, subnormals included. The f32 side is bound as u32 bit patterns so
// no adapter can flush or canonicalise a value on the way.

struct Params {
  n: u32, // f32 elements
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;        // pack: f32 bits (n)
@group(0) @binding(2) var<storage, read_write> packed: array<u32>; // pack: out, ceil(n / 2) words
@group(0) @binding(3) var<storage, read> packedIn: array<u32>;    // unpack: in, ceil(n / 2) words
@group(0) @binding(4) var<storage, read_write> dst: array<u32>;   // unpack: f32 bits (n)

const WG = 256u;

fn f32ToF16Bits(bits: u32) -> u32 {
  let sign = (bits >> 16u) & 0x8000u;
  let exp = (bits >> 23u) & 0xffu;
  let mant = bits & 0x7fffffu;
  if (exp == 0xffu) { return sign | 0x7c00u | select(0u, 0x200u, mant != 0u); }
  let e = i32(exp) - 112; // re-biased exponent (127 → 15)
  if (e >= 31) { return sign | 0x7c00u; }
  if (e <= 0) {
    // f16 subnormal: units of 2^-24 are m >> shift.
    let shift = u32(14 - e);
    if (shift > 24u) { return sign; }
    let m = mant | 0x800000u;
    var h = m >> shift;
    let rest = m & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (h & 1u) == 1u)) { h += 1u; } // a carry into the exponent is right
    return sign | h;
  }
  var h = sign | (u32(e) << 10u) | (mant >> 13u);
  let rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) == 1u)) { h += 1u; } // may carry up to Inf: right
  return h;
}

fn f16BitsToF32Bits(h: u32) -> u32 {
  let sign = (h & 0x8000u) << 16u;
  let exp = (h >> 10u) & 0x1fu;
  let mant = h & 0x3ffu;
  if (exp == 0x1fu) { return sign | 0x7f800000u | (mant << 13u); }
  if (exp == 0u) {
    if (mant == 0u) { return sign; }
    // subnormal m·2^-24: normalise by hand (f32 holds it exactly as a normal number)
    let lead = 31u - countLeadingZeros(mant); // highest set bit, 0..9
    let m = (mant << (10u - lead)) & 0x3ffu;
    return sign | ((lead + 103u) << 23u) | (m << 13u);
  }
  return sign | ((exp + 112u) << 23u) | (mant << 13u);
}

@compute @workgroup_size(WG)
fn forward_pack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * WG; // word index
  let e = 2u * i;
  if (e >= p.n) { return; }
  var hi = 0u;
  if (e + 1u < p.n) { hi = f32ToF16Bits(src[e + 1u]); }
  packed[i] = f32ToF16Bits(src[e]) | (hi << 16u);
}

@compute @workgroup_size(WG)
fn forward_unpack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let e = gid.x + gid.y * nwg.x * WG;
  if (e >= p.n) { return; }
  dst[e] = f16BitsToF32Bits((packedIn[e >> 1u] >> (16u * (e & 1u))) & 0xffffu);
}
