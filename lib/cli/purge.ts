import { allModules } from '../create-services.js';
import { PURGE_BATCH, type Purged, purgeDeleted } from '../resources/purge.js';
import { referrersOf } from '../resources/serving.js';
import { openStorage } from '../storage/open-storage.js';
import { cliApplication } from './application-context.js';
import { cliTenancyLog } from './service-context.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';
import { required } from './options.js';
import { printJson } from './print-json.js';
import { line } from './terminal-text.js';

const DAY = 86_400_000;

/** `--older-than DAYS`: a number ≥ 0 (fractions allowed: 0.5 is twelve hours). */
function daysOf(value: string): number {
  const days = Number(value);
  if (value.trim() === '' || !Number.isFinite(days) || days < 0) throw new CliError(`--older-than must be a number of days ≥ 0, not '${value}'`, 2);
  return days;
}

/**
 * `restlayer purge --older-than DAYS [--service NAME] [--batch N]` (contract part 13): removes the records of the
 * soft-deletable resources (or of the one named) deleted longer ago than DAYS, with their children, in short
 * batches. Resources that other resources' tables refer to go last, so a customer's deleted orders are purged
 * before it. One line per resource: how many records it removed, in how many batches.
 */
export async function purge(opts: { olderThan?: string; service?: string; batch?: number; json?: boolean }): Promise<void> {
  const days = daysOf(required(opts.olderThan, '--older-than <days>'));
  const application = await cliApplication();
  const resources = allModules(application.modules).flatMap((m) => m.resources ?? []);
  const deletable = resources.filter((r) => r.model.softDelete);
  if (opts.service !== undefined && !deletable.some((r) => r.name === opts.service)) {
    throw new CliError(`unknown service '${opts.service}': soft-deletable services are ${deletable.map((r) => r.name).join(', ') || 'none'}`, 2);
  }
  const { config } = configOrFail();
  const storage = await openStorage(config, allModules(application.modules), { tenancyLog: cliTenancyLog });
  const referrers = referrersOf(resources);
  const before = new Date(Date.now() - days * DAY);
  const chosen = deletable.filter((r) => opts.service === undefined || r.name === opts.service)
    .sort((a, b) => (referrers.get(a.model)?.length ?? 0) - (referrers.get(b.model)?.length ?? 0));
  const purged: Purged[] = [];
  try {
    for (const r of chosen) purged.push(await purgeDeleted(storage, r.model, referrers.get(r.model) ?? [], before, opts.batch ?? PURGE_BATCH));
  } finally {
    await storage.close();
  }
  if (opts.json) return printJson(purged);
  for (const p of purged) process.stdout.write(line`${p.resource}: ${String(p.records)} purged in ${String(p.batches)} batches`);
}
