/**
 * Logistic regression for the engine's calibrated probabilities (answer confidence, the hop gate,
 * the lines shown): the model and its prediction. Fitting and the reliability measurement are
 * tooling, in src/eval/fit.ts.
 */
export interface LogisticModel {
  features: readonly string[];
  mean: number[];
  std: number[];
  weights: number[];
  bias: number;
}

export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * P(1) of a feature vector. With `names` (the caller's feature list), a model fitted on other
 * features is refused: a feature added to the code without a refit would shift every weight.
 */
export function predict(
  model: LogisticModel,
  x: readonly number[],
  names?: readonly string[],
  refit = 'npx ragask calibrate … --write',
): number {
  if (names && (names.length !== model.features.length || names.some((n, i) => n !== model.features[i]))) {
    throw new Error(
      `the fitted model's features (${model.features.join(', ')}) are not the code's (${names.join(', ')}): refit it with \`${refit}\``,
    );
  }
  if (x.length !== model.weights.length)
    throw new Error(
      `a feature vector of ${x.length} values for a model of ${model.weights.length}: refit it with \`${refit}\``,
    );
  let z = model.bias;
  for (let i = 0; i < x.length; i++) z += model.weights[i]! * ((x[i]! - model.mean[i]!) / model.std[i]!);
  return sigmoid(z);
}
