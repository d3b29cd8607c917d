// The lab's WebAssembly SIMD kernel, written out as WebAssembly text (WAT) for the build to
// assemble (chapter/build.py runs static/wasm/assemble.mjs, with wabt from npm, pinned). Three
// exports do the heavy work of a forward, over float32 values in the module's memory (byte
// offsets, every width a multiple of 4):
//
//   matmul(W, X, Y, rows, cols, k)  Y[p][r] = Σ_c W[r][c] · X[p][c] for k positions p at once
//   swiglu(GU, A, m, k)             A[p][i] = SiLU(GU[p][i]) · GU[p][m + i]
//   attend(Q, K, V, Y, S, n, C, D, scale)
//                                   Y = causal attention of one query Q (C values, heads of D) over
//                                   n rows of keys K and values V (C each), S scratch for n scores
//
// matmul reads each weight once for a group of up to 6 positions: the kernel blocks R rows × P
// positions (R = 4 for P ≤ 3, R = 2 for P ≤ 6, the rows left over one at a time), each pair with
// its own f32x4 accumulator, so R·P accumulators, R weights and P inputs fit the 16 SIMD registers
// of x86-64. A pair's sum runs in one order whatever R and P are (lane j adds the products of
// columns j, j + 4, j + 8, … in turn, then (l0 + l1) + (l2 + l3)), with mul and add rounded apart
// (no fused multiply-add), so a position's outputs are the same bits alone or among a verify's
// positions: greedy speculative text equals plain text here too.
//
// The generator below writes one function per (R, P) shape; the WAT it returns is what the page
// carries, assembled.

const SHAPES = [];
for (const R of [1, 2, 4]) for (let P = 1; P <= 6; P++) SHAPES.push([R, P]);
const shapeIndex = (R, P) => SHAPES.findIndex(([r, p]) => r === R && p === P);
export const MAX_CHUNK = 6;  // positions per pass over the weights

const range = (n) => Array.from({ length: n }, (_, i) => i);

// One R × P block: rows w, w + colsBytes, …; positions x, x + colsBytes, …; outputs y + p·yStride + r·4.
function blockFunction(R, P) {
  const acc = (r, p) => `$a${r}_${p}`;
  const locals = [
    ...range(R).map((r) => `(local $w${r} i32)`),
    ...range(P).map((p) => `(local $x${p} i32)`),
    ...range(R).flatMap((r) => range(P).map((p) => `(local ${acc(r, p)} v128)`)),
    ...range(R).map((r) => `(local $v${r} v128)`),
    ...range(P).map((p) => `(local $u${p} v128)`),
    "(local $c i32)",
  ];
  const setup = [
    ...range(R).map((r) => `(local.set $w${r} (i32.add (local.get $w) (i32.mul (local.get $colsBytes) (i32.const ${r}))))`),
    ...range(P).map((p) => `(local.set $x${p} (i32.add (local.get $x) (i32.mul (local.get $colsBytes) (i32.const ${p}))))`),
  ];
  const body = [
    ...range(R).map((r) => `(local.set $v${r} (v128.load (i32.add (local.get $w${r}) (local.get $c))))`),
    ...range(P).map((p) => `(local.set $u${p} (v128.load (i32.add (local.get $x${p}) (local.get $c))))`),
    ...range(R).flatMap((r) => range(P).map((p) =>
      `(local.set ${acc(r, p)} (f32x4.add (local.get ${acc(r, p)}) (f32x4.mul (local.get $v${r}) (local.get $u${p}))))`)),
  ];
  const lane = (r, p, i) => `(f32x4.extract_lane ${i} (local.get ${acc(r, p)}))`;
  const store = range(R).flatMap((r) => range(P).map((p) =>
    `(f32.store (i32.add (local.get $y) (i32.add (i32.mul (local.get $yStride) (i32.const ${p})) (i32.const ${4 * r})))
      (f32.add (f32.add ${lane(r, p, 0)} ${lane(r, p, 1)}) (f32.add ${lane(r, p, 2)} ${lane(r, p, 3)})))`));
  return `
  (func $block_${R}_${P} (type $block) (param $w i32) (param $x i32) (param $y i32) (param $colsBytes i32) (param $yStride i32)
    ${locals.join("\n    ")}
    ${setup.join("\n    ")}
    (block $done (loop $columns
      (br_if $done (i32.ge_u (local.get $c) (local.get $colsBytes)))
      ${body.join("\n      ")}
      (local.set $c (i32.add (local.get $c) (i32.const 16)))
      (br $columns)))
    ${store.join("\n    ")})`;
}

// e^x for four lanes: 2^n · e^(f·ln 2), n the nearest integer to x·log2(e), the second factor by
// its Taylor series to degree 6 (relative error about 1e-7 for |f| ≤ ½); x clamped to [-87, 88].
const EXP = `
  (func $exp (param $x v128) (result v128) (local $t v128) (local $n v128) (local $y v128) (local $p v128)
    (local.set $x (f32x4.max (f32x4.min (local.get $x) (f32x4.splat (f32.const 88))) (f32x4.splat (f32.const -87))))
    (local.set $t (f32x4.mul (local.get $x) (f32x4.splat (f32.const 1.44269504088896341))))
    (local.set $n (f32x4.nearest (local.get $t)))
    (local.set $y (f32x4.mul (f32x4.sub (local.get $t) (local.get $n)) (f32x4.splat (f32.const 0.693147180559945309))))
    (local.set $p (f32x4.splat (f32.const 0.00138888888888888889)))
    ${[0.00833333333333333333, 0.0416666666666666667, 0.166666666666666667, 0.5, 1, 1].map((c) =>
      `(local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $y)) (f32x4.splat (f32.const ${c}))))`).join("\n    ")}
    (f32x4.mul (local.get $p)
      (i32x4.shl (i32x4.add (i32x4.trunc_sat_f32x4_s (local.get $n)) (i32x4.splat (i32.const 127))) (i32.const 23))))`;

const SWIGLU = `
  (func (export "swiglu") (param $gu i32) (param $out i32) (param $m i32) (param $k i32)
    (local $p i32) (local $i i32) (local $g v128) (local $mBytes i32)
    (local.set $mBytes (i32.shl (local.get $m) (i32.const 2)))
    (block $positionsDone (loop $positions
      (br_if $positionsDone (i32.ge_u (local.get $p) (local.get $k)))
      (local.set $i (i32.const 0))
      (block $done (loop $units
        (br_if $done (i32.ge_u (local.get $i) (local.get $mBytes)))
        (local.set $g (v128.load (i32.add (local.get $gu) (local.get $i))))
        (v128.store (i32.add (local.get $out) (local.get $i))
          (f32x4.mul
            (f32x4.div (local.get $g) (f32x4.add (f32x4.splat (f32.const 1)) (call $exp (f32x4.neg (local.get $g)))))
            (v128.load (i32.add (i32.add (local.get $gu) (local.get $mBytes)) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $units)))
      (local.set $gu (i32.add (local.get $gu) (i32.shl (local.get $mBytes) (i32.const 1))))
      (local.set $out (i32.add (local.get $out) (local.get $mBytes)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $positions))))`;

// One query over n keys and values (rows of C values), head by head (D values each): scores by
// dot products of four lanes, the softmax with $exp, then the values weighted into Y. A query's
// output depends only on its own n rows, so it is the same bits in any verify.
const ATTEND = `
  (func (export "attend") (param $q i32) (param $keys i32) (param $values i32) (param $y i32) (param $scores i32)
    (param $n i32) (param $c i32) (param $d i32) (param $scale f32)
    (local $rowBytes i32) (local $dBytes i32) (local $h i32) (local $j i32) (local $o i32) (local $i i32)
    (local $acc v128) (local $top f32) (local $sum f32) (local $score f32) (local $w v128)
    (local.set $rowBytes (i32.shl (local.get $c) (i32.const 2)))
    (local.set $dBytes (i32.shl (local.get $d) (i32.const 2)))
    (block $headsDone (loop $heads
      (br_if $headsDone (i32.ge_u (local.get $h) (local.get $rowBytes)))
      ;; scores: q · k_j, scaled, and the largest of them
      (local.set $top (f32.const -inf))
      (local.set $j (i32.const 0))
      (local.set $o (i32.add (local.get $keys) (local.get $h)))
      (block $scoresDone (loop $scoring
        (br_if $scoresDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $dotDone (loop $dot
          (br_if $dotDone (i32.ge_u (local.get $i) (local.get $dBytes)))
          (local.set $acc (f32x4.add (local.get $acc)
            (f32x4.mul (v128.load (i32.add (i32.add (local.get $q) (local.get $h)) (local.get $i)))
                       (v128.load (i32.add (local.get $o) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $dot)))
        (local.set $score (f32.mul (local.get $scale)
          (f32.add (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
                   (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc))))))
        (f32.store (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2))) (local.get $score))
        (local.set $top (f32.max (local.get $top) (local.get $score)))
        (local.set $o (i32.add (local.get $o) (local.get $rowBytes)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $scoring)))
      ;; the softmax's numerators and their sum
      (local.set $sum (f32.const 0))
      (local.set $j (i32.const 0))
      (block $expDone (loop $exps
        (br_if $expDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $score (f32x4.extract_lane 0 (call $exp (f32x4.splat
          (f32.sub (f32.load (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2)))) (local.get $top))))))
        (f32.store (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2))) (local.get $score))
        (local.set $sum (f32.add (local.get $sum) (local.get $score)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $exps)))
      ;; this head's output: Σ_j (e_j / sum) v_j
      (local.set $i (i32.const 0))
      (block $zeroDone (loop $zero
        (br_if $zeroDone (i32.ge_u (local.get $i) (local.get $dBytes)))
        (v128.store (i32.add (i32.add (local.get $y) (local.get $h)) (local.get $i)) (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $zero)))
      (local.set $j (i32.const 0))
      (local.set $o (i32.add (local.get $values) (local.get $h)))
      (block $sumDone (loop $weighting
        (br_if $sumDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $w (f32x4.splat (f32.div (f32.load (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 2)))) (local.get $sum))))
        (local.set $i (i32.const 0))
        (block $rowDone (loop $row
          (br_if $rowDone (i32.ge_u (local.get $i) (local.get $dBytes)))
          (v128.store (i32.add (i32.add (local.get $y) (local.get $h)) (local.get $i))
            (f32x4.add (v128.load (i32.add (i32.add (local.get $y) (local.get $h)) (local.get $i)))
                       (f32x4.mul (local.get $w) (v128.load (i32.add (local.get $o) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $row)))
        (local.set $o (i32.add (local.get $o) (local.get $rowBytes)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $weighting)))
      (local.set $h (i32.add (local.get $h) (local.get $dBytes)))
      (br $heads))))`;

// matmul: positions in passes of at most MAX_CHUNK, as even as can be (7 = 4 + 3, 9 = 5 + 4); in a
// pass of P positions, rows R at a time and the rest one by one, each block called through the table.
const MATMUL = `
  (func (export "matmul") (param $w i32) (param $x i32) (param $y i32) (param $rows i32) (param $cols i32) (param $k i32)
    (local $colsBytes i32) (local $yStride i32) (local $passes i32) (local $P i32) (local $R i32) (local $done i32) (local $r i32)
    (local.set $colsBytes (i32.shl (local.get $cols) (i32.const 2)))
    (local.set $yStride (i32.shl (local.get $rows) (i32.const 2)))
    (local.set $passes (i32.div_u (i32.add (local.get $k) (i32.const ${MAX_CHUNK - 1})) (i32.const ${MAX_CHUNK})))
    (block $allDone (loop $pass
      (br_if $allDone (i32.ge_u (local.get $done) (local.get $k)))
      ;; this pass: what is left, shared evenly among the passes left
      (local.set $P (i32.div_u (i32.add (i32.sub (local.get $k) (local.get $done)) (i32.sub (local.get $passes) (i32.const 1)))
                               (local.get $passes)))
      (local.set $R (select (i32.const 4) (i32.const 2) (i32.le_u (local.get $P) (i32.const 3))))
      (local.set $r (i32.const 0))
      (block $blocksDone (loop $blocks
        (br_if $blocksDone (i32.gt_u (i32.add (local.get $r) (local.get $R)) (local.get $rows)))
        (call_indirect (type $block)
          (i32.add (local.get $w) (i32.mul (local.get $r) (local.get $colsBytes)))
          (i32.add (local.get $x) (i32.mul (local.get $done) (local.get $colsBytes)))
          (i32.add (local.get $y) (i32.add (i32.mul (local.get $done) (local.get $yStride)) (i32.shl (local.get $r) (i32.const 2))))
          (local.get $colsBytes) (local.get $yStride)
          (i32.add (i32.mul (select (i32.const ${shapeIndex(4, 1)}) (i32.const ${shapeIndex(2, 1)}) (i32.eq (local.get $R) (i32.const 4))) (i32.const 1))
                   (i32.sub (local.get $P) (i32.const 1))))
        (local.set $r (i32.add (local.get $r) (local.get $R)))
        (br $blocks)))
      (block $restDone (loop $rest
        (br_if $restDone (i32.ge_u (local.get $r) (local.get $rows)))
        (call_indirect (type $block)
          (i32.add (local.get $w) (i32.mul (local.get $r) (local.get $colsBytes)))
          (i32.add (local.get $x) (i32.mul (local.get $done) (local.get $colsBytes)))
          (i32.add (local.get $y) (i32.add (i32.mul (local.get $done) (local.get $yStride)) (i32.shl (local.get $r) (i32.const 2))))
          (local.get $colsBytes) (local.get $yStride)
          (i32.add (i32.const ${shapeIndex(1, 1)}) (i32.sub (local.get $P) (i32.const 1))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rest)))
      (local.set $done (i32.add (local.get $done) (local.get $P)))
      (local.set $passes (i32.sub (local.get $passes) (i32.const 1)))
      (br $pass))))`;

export function kernelWat() {
  return `(module
  (memory (export "memory") 1 65536)
  (type $block (func (param i32 i32 i32 i32 i32)))
  (table ${SHAPES.length} funcref)
  (elem (i32.const 0) ${SHAPES.map(([R, P]) => `$block_${R}_${P}`).join(" ")})
${SHAPES.map(([R, P]) => blockFunction(R, P)).join("\n")}
${EXP}
${SWIGLU}
${ATTEND}
${MATMUL})
`;
}
