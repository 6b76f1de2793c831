/**
 * The detection-quality targets of issue 17 ("Done when"), each with the
 * figure as measured and whether it is met. A figure that was not measured
 * (null, e.g. benign_wild with `--wild-mb 0`) is not met.
 */

export interface TargetCheck {
  value: number | null;
  op: '>=' | '<=';
  target: number;
  met: boolean;
}

export interface TargetFigures {
  secretsRecall: number;
  secretsFpRate: number;
  benignFilesChangingPerMb: number;
  benignWildChangingPerMb: number | null;
  exfilRecall: number;
  exfilBenignLinksChanged: number;
  injectionFpRate: number;
}

function check(value: number | null, op: '>=' | '<=', target: number): TargetCheck {
  const met = value !== null && (op === '>=' ? value >= target : value <= target);
  return { value, op, target, met };
}

/** Keyed by the figure's path in the eval JSON. */
export function checkTargets(f: TargetFigures): Record<string, TargetCheck> {
  return {
    'secrets.recall': check(f.secretsRecall, '>=', 0.97),
    'secrets.fp_rate': check(f.secretsFpRate, '<=', 0.01),
    'benign_files.changing_per_mb': check(f.benignFilesChangingPerMb, '<=', 0.5),
    'benign_wild.changing_per_mb': check(f.benignWildChangingPerMb, '<=', 0.2),
    'exfil.recall': check(f.exfilRecall, '>=', 1),
    'exfil.benign_changed_count': check(f.exfilBenignLinksChanged, '<=', 0),
    'injection.fp_rate': check(f.injectionFpRate, '<=', 0.02),
  };
}
