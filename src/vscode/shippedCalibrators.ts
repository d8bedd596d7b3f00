import * as vscode from 'vscode';
import { loadShippedCalibrators } from '../core/judgment/judge';
import type { RoundCalibrator } from '../core/prove/judgeRound';

let calibrators: RoundCalibrator[] | null | undefined;

/**
 * The judging calibrators shipped with Stepwise, read once for every feature that needs them
 * (proving, Check My Proof, the model picker); each run uses the one fitted on its models, else the
 * default. Should one be unreadable (a broken install), proving goes on without P(correct) —
 * refinement then stops on the self-evaluation — and the user is told why once.
 */
export function shippedCalibrators(): RoundCalibrator[] | null {
  if (calibrators !== undefined) return calibrators;
  try {
    calibrators = loadShippedCalibrators();
  } catch (e) {
    calibrators = null;
    void vscode.window.showWarningMessage(
      `Stepwise: proofs get no calibrated P(correct): ${(e as Error).message} Reinstall the extension to restore it.`,
    );
  }
  return calibrators;
}

/**
 * The models a shipped calibrator was fitted on, as generator and verifier both (the product's
 * default pairing); undefined when the calibrators cannot be read, so the picker claims nothing.
 */
export function calibratedModels(): Set<string> | undefined {
  const shipped = shippedCalibrators();
  if (!shipped) return undefined;
  return new Set(
    shipped
      .map((c) => c.calibrator.fittedOn)
      .filter((on) => on && on.generator === on.verifier)
      .map((on) => on!.generator),
  );
}
