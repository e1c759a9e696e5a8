import type { FieldSpec, ServiceSpec } from '../spec.js';
import { header, importLine, lines, lowerHuman, quoted } from './code.js';
import { fromColumn } from './columns.js';
import { scopesName } from './scopes.js';

/** `purchaseOrderHistory`: where the service's history is (readHistory's HistorySource). */
export const historyName = (spec: ServiceSpec) => `${spec.camel}History`;

/** `PurchaseOrderAudit`: the class reading a record's audit state and recording its entries. */
export const auditName = (spec: ServiceSpec) => `${spec.pascal}Audit`;

const usesValues = (fields: FieldSpec[]) => fields.some((f) => f.type === 'date' || f.type === 'boolean' || f.type === 'money');

/**
 * services/<name>/<name>-audit.ts: the record's fields as on the wire, read inside a write's transaction before and
 * after it, and the entry of their differences (restlayer's recordAudit, diffChanges), written in that transaction.
 */
export function auditFile(spec: ServiceSpec): string {
  const { pascal, kebab, table, idColumn, id, child } = spec;
  const human = lowerHuman(spec);
  const columns = [...spec.fields.map((f) => f.column), ...(child?.totals ?? []).map((t) => t.column), 'revision_number'];
  const parentValues = usesValues(spec.fields) || (child?.totals.length ?? 0) > 0;
  const fields = lines(
    ...spec.fields.map((f) => `      ${f.name}: ${fromColumn(f)},`),
    ...(child?.totals ?? []).map((t) => `      ${t.name}: v.toMoney(r.${t.column}),`),
    '      revisionNumber: r.revision_number,',
  );
  const history = lines(
    `/** Where ${anOf(human)}'s history is: entries under \`${kebab}\`, the records' scopes, deleted ones for ${kebab}.delete. */`,
    `export const ${historyName(spec)}: HistorySource = {`,
    `  entity: '${kebab}',`,
    `  table: '${table}',`,
    `  key: '${idColumn}',`,
    `  scopes: ${scopesName(spec)},`,
    `  deletePermission: '${kebab}.delete',`,
    `  name: '${spec.human}',`,
    '};',
  );
  const record = lines(
    '  /** Records the write\'s entry in its transaction: the fields that differ between `before` and `after`. */',
    `  record(trx: Kysely<Db>, ${id}: number, operation: AuditOperation, before?: AuditState, after?: AuditState): Promise<void> {`,
    `    return recordAudit(trx, { entity: ${historyName(spec)}.entity, recordId: ${id}, operation, changes: diffChanges(before, after) });`,
    '  }',
  );
  const head = (extra: (string | false)[]) => lines(
    header(spec).trimEnd(),
    importLine([
      'type AuditOperation', 'type AuditState', child && 'type DocumentSpec', child && 'type FieldValue', 'type HistorySource', 'type Kysely', 'type Storage',
      'type Tables', child && 'type Transaction', child && 'currentErrors', 'diffChanges', child && 'prefixed', 'recordAudit',
    ], 'restlayer'),
    `import { ${scopesName(spec)} } from './${kebab}-scopes.js';`,
    `import type { ${pascal}Tables } from './${kebab}-tables.js';`,
    '',
    `type Db = Tables & ${pascal}Tables;`,
    '',
    history,
    '',
    ...extra,
  );
  if (!child) {
    return lines(
      head([]),
      `/** The audit of ${human} records: the record's wire fields before and after a write, read and recorded in its transaction. */`,
      `export class ${auditName(spec)} {`,
      '  constructor(private readonly storage: Storage) {}',
      '',
      '  /** The record as stored now, through `trx`; `lock` locks its row first (PostgreSQL) for the write that follows. */',
      `  async state(trx: Kysely<Db>, ${id}: number, lock = false): Promise<AuditState | undefined> {`,
      `    const r = await trx.selectFrom('${table}').select([${quoted(columns)}])`,
      `      .where('${idColumn}', '=', ${id})`,
      '      .$if(lock && this.storage.dialect.locksRows, (q) => q.forUpdate()).executeTakeFirst();',
      '    if (!r) return undefined;',
      parentValues && '    const v = this.storage.values;',
      '    return {',
      fields,
      '    };',
      '  }',
      '',
      record,
      '}',
      '',
    );
  }
  return lines(
    head([`/** Which ${child.plural} a state holds: every one (create, delete), one (${anOf(child.segment)} write), or none (the record's own writes). */`,
      "export type ChildrenOf = 'all' | 'none' | number;", '']),
    '/**',
    ` * The audit of ${human} records: the record's fields and ${child.plural} as on the wire (\`${child.plural}[<${child.id}>].${child.fields[0].name}\`),`,
    ' * read inside the write\'s transaction before and after it, and the entry of their differences, written there too.',
    ' */',
    `export class ${auditName(spec)} {`,
    '  constructor(private readonly storage: Storage, private readonly document: DocumentSpec<Db, AuditState>) {}',
    '',
    '  /**',
    '   * The record as stored now, through `trx`; undefined when there is none. `lock`: lock the record first (PostgreSQL),',
    '   * for a write that has not locked it yet (delete), so the state read is the one the write changes.',
    '   */',
    `  async state(trx: Kysely<Db>, ${id}: number, children: ChildrenOf, lock = false): Promise<AuditState | undefined> {`,
    `    const r = await trx.selectFrom('${table}').select([${quoted(columns)}])`,
    `      .where('${idColumn}', '=', ${id})`,
    '      .$if(lock && this.storage.dialect.locksRows, (q) => q.forUpdate()).executeTakeFirst();',
    '    if (!r) return undefined;',
    (parentValues || usesValues(child.fields)) && '    const v = this.storage.values;',
    '    const state: Record<string, FieldValue> = {',
    fields,
    '    };',
    "    if (children === 'none') return state;",
    `    const rows = await trx.selectFrom('${child.table}').select([${quoted([child.idColumn, ...child.fields.map((f) => f.column)])}])`,
    `      .where('${idColumn}', '=', ${id})`,
    `      .$if(typeof children === 'number', (q) => q.where('${child.idColumn}', '=', children as number))`,
    `      .orderBy('${child.idColumn}').execute();`,
    '    for (const r of rows) {',
    `      Object.assign(state, prefixed(\`${child.plural}[\${r.${child.idColumn}}].\`, {`,
    ...child.fields.map((f) => `        ${f.name}: ${fromColumn(f)},`),
    '      }));',
    '    }',
    '    return state;',
    '  }',
    '',
    '  /**',
    '   * The record as the write leaves it: writeDocument and createDocument store the totals and the next revision after',
    '   * the work this runs in, so they are computed here the same way (the document\'s totals, the revision + `bump`).',
    '   */',
    `  async settled(trx: Transaction<Db>, ${id}: number, children: ChildrenOf, bump: 0 | 1): Promise<AuditState> {`,
    `    const state = (await this.state(trx, ${id}, children))!;`,
    `    const { wire } = await this.document.totals(trx, ${id});`,
    '    return { ...state, ...wire, revisionNumber: Number(state.revisionNumber) + bump };',
    '  }',
    '',
    '  /**',
    `   * Runs \`work\`, a write inside writeDocument (the record locked, its revision checked), between the record's state`,
    `   * before and after it, and records their difference in the same transaction. \`children\`: the ${child.plural} the write`,
    `   * touches (\`after\` names them once the work answered, e.g. a new ${child.segment}'s id). A write that recorded errors`,
    '   * records nothing (it is rolled back).',
    '   */',
    '  async audited<T>(',
    `    trx: Transaction<Db>, ${id}: number, operation: AuditOperation, children: ChildrenOf, work: () => Promise<T>,`,
    `    after: (result: T) => ChildrenOf = () => children,`,
    '  ): Promise<T> {',
    `    const before = await this.state(trx, ${id}, children);`,
    '    const result = await work();',
    `    if (!currentErrors().hasErrors) await this.record(trx, ${id}, operation, before, await this.settled(trx, ${id}, after(result), 1));`,
    '    return result;',
    '  }',
    '',
    record,
    '}',
    '',
  );
}

/** `an invoice`, `a purchase order`. */
const anOf = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
