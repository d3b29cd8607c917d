// Chi-square goodness of fit for the JS tests: the statistic and the Wilson–Hilferty
// approximation of the critical value (good to a few percent for the dof used here).
export function chiSquare(counts, probs) {
  const n = counts.reduce((a, b) => a + b, 0);
  let stat = 0, dof = -1, pooledObs = 0, pooledExp = 0;
  counts.forEach((c, i) => {
    const e = probs[i] * n;
    if (e >= 5) { stat += (c - e) ** 2 / e; dof += 1; } else { pooledObs += c; pooledExp += e; }
  });
  if (pooledExp > 0) { stat += (pooledObs - pooledExp) ** 2 / pooledExp; dof += 1; }
  return { stat, dof };
}

export function criticalValue(dof, z = 3.719) { // z = 3.719: upper tail 1e-4
  const a = 2 / (9 * dof);
  return dof * (1 - a + z * Math.sqrt(a)) ** 3;
}
