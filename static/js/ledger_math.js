// Section ⑥'s ledger, its arithmetic: lanes, verdicts, sorting, and the card's steps from the
// theorem to the clock. No sentences (ledger_text.js) and no DOM (ledger.js).
import { ownEntry } from "./state.js";
import { pairedVerdict } from "./theory.js";

const METHOD_ORDER = { plain: 0, draft: 1, mtp: 2 };

export const laneOf = (row) => (row.engine === "compiled" ? "compiled" : row.mode);
// Slower than plain decoding as the table shows it (to two decimals), so "1.00×" is never red.
// the chapter's verdict rule (theory.js pairedVerdict): slower only when every paired repeat is below 1×
export const verdictOf = (row) => (row.method === "plain" ? "plain" : pairedVerdict(row.speedup_runs));
export const slowerThanPlain = (row) => verdictOf(row) === "slower";
export const verdictClass = (row) => ({ slower: "warn", faster: "good" })[verdictOf(row)] ?? "";  // a readout's colour

// Sortable columns: the value a sort compares (null sorts last either way).
export const LEDGER_SORT = {
  method: (r) => METHOD_ORDER[r.method] * 100 + r.gamma,
  main_forwards: (r) => r.main_forwards,
  draft_forwards: (r) => r.draft_forwards,
  tokens_per_main: (r) => r.tokens_per_main,
  alpha: (r) => r.alpha,
  wall: (r) => r.wall_s.median,
  speedup: (r) => r.speedup,
  speedup_theory: (r) => r.speedup_theory ?? null,
};

// The sort an address asks for ("alpha-asc"): a column of LEDGER_SORT, else the speedup, descending.
export function sortFromHash(text) {
  const [key, dir] = String(text ?? "").split("-");
  return { key: ownEntry(LEDGER_SORT, key) ? key : "speedup", dir: dir === "asc" ? "asc" : "desc" };
}

export function sortLedger(rows, key, dir) {
  const value = ownEntry(LEDGER_SORT, key);
  if (!value) throw new Error(`unknown ledger column ${key}`);
  const sign = dir === "asc" ? 1 : -1;
  return rows.map((row, i) => ({ row, i })).sort((a, b) => {
    const va = value(a.row), vb = value(b.row);
    if (va === null || vb === null) return (va === null) - (vb === null) || a.i - b.i;
    return sign * (va - vb) || a.i - b.i;
  }).map((x) => x.row);
}

// From the theorem to the clock, one measured cost at a time. Each speedup is plain ÷ row:
//   theory   Theorem 3.8 at the row's α and c
//   counted  the row's real forward counts at the theorem's prices (verify 1×, draft c)
//   priced   the time spent inside the forwards, as timed in the median run of each row
//   measured wall clock: adds sampling, bookkeeping and Python around the forwards
// The seconds are that median run's parts (parts_s: timed inside the run, so none is negative).
export function ledgerSteps(row, plain) {
  return {
    theory: row.speedup_theory ?? 1,
    counted: plain.main_forwards / (row.main_forwards + row.draft_forwards * (row.c_used ?? 0)),
    priced: plain.forward_time_s / row.forward_time_s,
    measured: row.speedup,
    verifySeconds: row.parts_s.main_forwards,
    draftSeconds: row.parts_s.draft_forwards,
    otherSeconds: row.parts_s.other,
    draftsPerRound: row.main_forwards ? row.draft_forwards / row.main_forwards : 0,
  };
}
