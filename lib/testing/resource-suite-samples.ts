import assert from 'node:assert/strict';
import type { FieldSpec, ReferenceTarget } from '../resources/field.js';
import type { ResourceField } from '../resources/model.js';
import type { TestServer } from './test-server.js';

/** A body a write sends: wire field name → value. */
export type Input = Record<string, unknown>;

/** The ids of a lookup table: those a record may name, and one the table does not hold. */
interface LookupIds {
  active: (number | string)[];
  absent: number | string;
}

/**
 * Values generated from the field types, for a resource whose team gave no `sample`: record `n` has every input
 * field, each value inside its limits, growing with `n` so that sorts and criteria have distinct values to work on.
 * Texts are a fixed capital and zero-padded digits, which every collation orders alike (SQLite's and PostgreSQL's).
 */
export class GeneratedValues {
  private readonly lookups = new Map<string, LookupIds>();
  private readonly references = new Map<ReferenceTarget, number[]>();

  constructor(private readonly server: TestServer) {}

  /** Record `n` of `fields`: every input field (`requiredOnly`: the required ones). */
  async record(fields: readonly ResourceField[], n: number, requiredOnly = false): Promise<Input> {
    const out: Input = {};
    for (const f of fields) {
      if (f.spec.input === 'none' || (requiredOnly && !f.spec.required)) continue;
      out[f.name] = await this.value(f.name, f.spec, n);
    }
    return out;
  }

  /** A value of one field for record `n`. */
  async value(name: string, spec: FieldSpec, n: number): Promise<unknown> {
    switch (spec.type) {
      case 'text': return textValue(name, spec, n);
      case 'integer': return inRange(spec.min ?? 0, spec.max, n);
      case 'decimal': return n + 0.5;
      case 'money': return inRange(Math.max(0, spec.min ?? 0), spec.max === undefined ? undefined : spec.max - 1, n) + 0.25;
      case 'date': return new Date(Date.UTC(2020, 0, 1 + n)).toISOString();
      case 'boolean': return n % 2 === 0;
      case 'lookup': {
        const { active } = await this.lookupIds(spec);
        return active[n % active.length];
      }
      case 'reference': {
        const ids = await this.referenceIds(spec.reference!);
        return ids[n % ids.length];
      }
      default: throw new Error(`${name}: a ${spec.type} field is never an input`);
    }
  }

  /** An id the lookup table of `spec` does not hold. */
  async absentLookup(spec: FieldSpec): Promise<number | string> {
    return (await this.lookupIds(spec)).absent;
  }

  private async lookupIds(spec: FieldSpec): Promise<LookupIds> {
    const table = spec.lookup!.table;
    let ids = this.lookups.get(table);
    if (!ids) {
      const reply = await this.server.call(`/lookup-table/${encodeURIComponent(table)}`);
      assert.equal(reply.status, 200, `lookup table ${table}: ${reply.text}`);
      const entries = (reply.body.result.data as { id: number | string; isActive: boolean }[]);
      const active = entries.filter((e) => e.isActive).map((e) => e.id);
      assert.ok(active.length, `lookup table ${table} has no active entry: give resourceSuite a sample`);
      const absent = spec.lookup!.id === 'text'
        ? 'Z'.repeat(Math.min(spec.max ?? 9, 9))
        : Math.max(0, ...entries.map((e) => Number(e.id))) + 1;
      ids = { active, absent };
      this.lookups.set(table, ids);
    }
    return ids;
  }

  /** Two records of the referenced resource, made once with values generated from its fields. */
  private async referenceIds(target: ReferenceTarget): Promise<number[]> {
    let ids = this.references.get(target);
    if (!ids) {
      ids = [];
      for (const n of [0, 1]) {
        const body: Input = {};
        for (const [name, f] of Object.entries(target.fields)) {
          if (f.spec.input !== 'none') body[name] = await this.value(name, f.spec, 9000 + n);
        }
        const reply = await this.server.call(`/${target.name}`, { method: 'POST', body });
        assert.equal(reply.status, 201, `a ${target.name} to refer to, generated from its fields, was refused: give resourceSuite a sample (${reply.text})`);
        ids.push(Number(reply.headers.get('Location')!.split('/').pop()));
      }
      this.references.set(target, ids);
    }
    return ids;
  }
}

function inRange(min: number, max: number | undefined, n: number): number {
  return max === undefined ? min + n : min + (n % Math.max(1, max - min + 1));
}

/** `N0042` for field `name` (its capital and `n` zero-padded), as long as `min` asks and cut to `max` from the left. */
function textValue(name: string, spec: FieldSpec, n: number): string {
  let text = `${name[0].toUpperCase()}${String(n).padStart(4, '0')}`;
  if (spec.min !== undefined && text.length < spec.min) text = text[0].repeat(spec.min - text.length) + text;
  return spec.max === undefined ? text : text.slice(-spec.max);
}

/** A value of the wrong JSON type for a field's input (refused with Input_InvalidType). */
export function wrongValue(spec: FieldSpec): unknown {
  switch (spec.type) {
    case 'text': return 42;
    case 'integer': case 'reference': return 1.5;
    case 'lookup': return spec.lookup?.id === 'text' ? 42 : 1.5;
    case 'date': return 'soon';
    case 'boolean': return 'maybe';
    default: return 'cheap';
  }
}

/** A wire value as the suite compares it: an instant by its time (its text may carry another offset or precision). */
export function comparable(value: unknown): unknown {
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) {
    const time = Date.parse(value);
    if (!Number.isNaN(time)) return time;
  }
  return value;
}

/** Asserts the record holds every value of `input` (instants compared by their time). */
export function assertHolds(record: Input, input: Input, what: string): void {
  for (const [name, value] of Object.entries(input)) {
    if (Array.isArray(value)) {
      // A child collection: its items in the order sent, each holding what was sent of it.
      const items = record[name];
      assert.ok(Array.isArray(items) && items.length === value.length, `${what}: ${name} holds ${value.length} items: ${JSON.stringify(record)}`);
      value.forEach((item, i) => assertHolds(items[i] as Input, item as Input, `${what}: ${name}[${i}]`));
    } else if (value === null || value === undefined) {
      assert.ok(!(name in record), `${what}: ${name} is absent, never null: ${JSON.stringify(record)}`);
    } else {
      assert.deepEqual(comparable(record[name]), comparable(value), `${what}: ${name} of ${JSON.stringify(record)}`);
    }
  }
}
