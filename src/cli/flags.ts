/**
 * Reading numeric flags, for every subcommand: a bad value is a UsageError that names the flag and
 * the rule, so `--iterations two` says what to type instead of failing somewhere later.
 */
import { UsageError } from './command';

/** A whole number ≥ min; the fallback (or undefined: "not given") when the flag is absent. */
export function wholeFlag(value: string | undefined, name: string, min: number): number | undefined;
export function wholeFlag(value: string | undefined, name: string, min: number, fallback: number): number;
export function wholeFlag(
  value: string | undefined,
  name: string,
  min: number,
  fallback?: number,
): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(`--${name} must be a whole number ≥ ${min}, not "${value}".`);
  return n;
}

/** A number from 0 to max; the fallback when the flag is absent. */
export function fractionFlag(value: string | undefined, name: string, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!(n >= 0 && n <= max))
    throw new UsageError(`--${name} must be a number from 0 to ${max}, not "${value}".`);
  return n;
}

/** One of `allowed`; undefined when the flag is absent. */
export function oneOf<T extends string>(
  value: string | undefined,
  name: string,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, not "${value}".`);
  return value as T;
}
