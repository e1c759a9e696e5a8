import { InvalidArgumentError } from 'commander';
import { CliError } from './cli-error.js';

export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535).');
  return n;
}

export function parsePositive(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1.');
  return n;
}

/**
 * An option the command cannot run without. Checked in the action, not by commander's `requiredOption`, whose check
 * runs before the one for unknown options: `--rol User` must be reported as unknown, not as `--role` missing.
 */
export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new CliError(`required option '${flag}' not specified`, 2);
  return value;
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];
