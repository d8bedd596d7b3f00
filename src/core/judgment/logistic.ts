/**
 * L2-penalised logistic regression fitted by Newton's method (IRLS): pure, deterministic (no
 * random start, no sampling), and exact for the handful of signals a candidate has. Inputs are
 * standardised first so one penalty means the same for every signal; the bias is not penalised.
 */

export interface LogisticModel {
  /** Per-feature mean and scale used to standardise (scale 1 for a constant feature). */
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

export const sigmoid = (z: number): number =>
  z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));

export function logit(p: number, eps = 1e-6): number {
  const q = Math.min(1 - eps, Math.max(eps, p));
  return Math.log(q / (1 - q));
}

/** The standardised contribution of each feature to the log-odds (w_i · (x_i − μ_i) / s_i). */
export function contributions(model: LogisticModel, x: readonly number[]): number[] {
  return model.weights.map((w, i) => (w * (x[i] - model.mean[i])) / model.scale[i]);
}

/** The log-odds of a row: bias plus the contributions. */
export function logOdds(model: LogisticModel, x: readonly number[]): number {
  return contributions(model, x).reduce((a, b) => a + b, model.bias);
}

/**
 * Fits P(y = 1 | x) = σ(b + Σ w_i (x_i − μ_i)/s_i), minimising the mean log loss plus
 * (l2 / 2)·|w|² / n. Rows with a single class give the bias that predicts its rate (clamped) and
 * zero weights, never an infinite log-odds.
 */
export function fitLogistic(rows: readonly number[][], labels: readonly boolean[], l2 = 1): LogisticModel {
  const n = rows.length;
  const d = rows[0]?.length ?? 0;
  const mean = Array.from({ length: d }, (_, j) => rows.reduce((a, r) => a + r[j], 0) / Math.max(1, n));
  const scale = mean.map((m, j) => {
    const sd = Math.sqrt(rows.reduce((a, r) => a + (r[j] - m) ** 2, 0) / Math.max(1, n));
    return sd > 1e-9 ? sd : 1;
  });
  const z = rows.map((r) => r.map((v, j) => (v - mean[j]) / scale[j]));
  const y = labels.map((l) => (l ? 1 : 0));
  const positives = y.reduce<number>((a, b) => a + b, 0);
  const rate = Math.min(1 - 1e-3, Math.max(1e-3, (positives + 0.5) / (n + 1)));
  // theta = [bias, w_1 … w_d]
  const theta = [logit(rate), ...new Array<number>(d).fill(0)];
  if (positives === 0 || positives === n) return { mean, scale, weights: theta.slice(1), bias: theta[0] };
  for (let iter = 0; iter < 100; iter++) {
    const grad = new Array<number>(d + 1).fill(0);
    const hess = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    for (let i = 0; i < n; i++) {
      const xi = [1, ...z[i]];
      const p = sigmoid(xi.reduce((a, v, j) => a + v * theta[j], 0));
      const w = Math.max(p * (1 - p), 1e-10);
      for (let a = 0; a <= d; a++) {
        grad[a] += (p - y[i]) * xi[a];
        for (let b = 0; b <= d; b++) hess[a][b] += w * xi[a] * xi[b];
      }
    }
    for (let a = 1; a <= d; a++) {
      grad[a] += l2 * theta[a];
      hess[a][a] += l2;
    }
    const step = solve(hess, grad);
    if (!step) break;
    let size = 0;
    for (let a = 0; a <= d; a++) {
      theta[a] -= step[a];
      size = Math.max(size, Math.abs(step[a]));
    }
    if (size < 1e-10) break;
  }
  return { mean, scale, weights: theta.slice(1), bias: theta[0] };
}

/** Solves A x = b by Gaussian elimination with partial pivoting; null when A is singular. */
export function solve(A: readonly number[][], b: readonly number[]): number[] | null {
  const n = b.length;
  const m = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    if (Math.abs(m[pivot][c]) < 1e-12) return null;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      if (f !== 0) for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}
