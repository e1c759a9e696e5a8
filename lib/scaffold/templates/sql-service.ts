import { type FieldSpec, type ServiceSpec, fullTextFields } from '../spec.js';
import { filterableFields, header, importLine, lines, lookupCode, lookupFields, lowerHuman, quoted, sortableFields } from './code.js';
import { modelTypesImport } from './service.js';

/** The stored form of one field of `data`, as `columnsOf` writes it. */
function toColumn(field: FieldSpec): string {
  const value = `data.${field.name}`;
  switch (field.type) {
    case 'date': return field.required ? `v.date(${value})` : `${value} ? v.date(${value}) : null`;
    case 'boolean': return field.required ? `v.bool(${value})` : `${value} == null ? null : v.bool(${value})`;
    case 'money': return field.required ? `v.money(${value})` : `${value} == null ? null : v.money(${value})`;
    default: return field.required ? value : `${value} ?? null`;
  }
}

/** The wire form of one column of row `r`, as `listItem` reads it: absent, never null, when there is no value. */
function fromColumn(field: FieldSpec): string {
  const value = `r.${field.column}`;
  switch (field.type) {
    case 'date': return field.required ? `v.toDate(${value})` : `${value} == null ? undefined : v.toDate(${value})`;
    case 'boolean': return field.required ? `v.toBool(${value})` : `${value} == null ? undefined : v.toBool(${value})`;
    case 'money': return field.required ? `v.toMoney(${value})` : `${value} == null ? undefined : v.toMoney(${value})`;
    default: return field.required ? value : `${value} ?? undefined`;
  }
}

/** services/<name>/sql-<name>-service.ts: the implementation over the store. */
export function sqlServiceFile(spec: ServiceSpec): string {
  const { pascal, camel, id, idColumn, table } = spec;
  const lookups = lookupFields(spec);
  const filterable = filterableFields(spec);
  const listed = [...new Set([...sortableFields(spec), ...filterable])];
  const usesValues = spec.fields.some((f) => f.type === 'date' || f.type === 'boolean' || f.type === 'money');
  const limitedText = filterable.filter((f) => f.type === 'text' && f.max);
  const listColumns = [idColumn, ...spec.fields.map((f) => f.column)];
  const listFields = `${pascal}SortField${filterable.length ? ` | ${pascal}FilterField` : ''}`;

  const constructor = lines(
    '  constructor(',
    '    private readonly storage: Storage,',
    lookups.length > 0 && '    private readonly lookups: LookupCache,',
    `    private readonly options: ${pascal}ServiceOptions,`,
    '  ) {',
    `    this.db = storage.db.withTables<${pascal}Tables>();`,
    '  }',
  );

  const checkData = lookups.length > 0 && lines(
    '',
    '  /** Business rules shared by create and update; structural checks already ran in the route. */',
    `  private async checkData(data: ${pascal}_CreateInput_Data) {`,
    '    const errors = currentErrors();',
    ...lookups.flatMap((f) => [
      `    if (!(await this.isActiveEntry('${f.lookup}', data.${f.name}))) {`,
      `      errors.error('Validation', '${lookupCode(spec, f)}', \`${f.name} \${data.${f.name}} is not an active entry of lookup table ${f.lookup}.\`, { property: '${f.name}' });`,
      '    }',
    ]),
    '    errors.abortIfHasErrors();',
    '  }',
    '',
    '  /** Whether `id` names an active entry of lookup table `type`; no value (an optional field left empty) is fine. */',
    '  private async isActiveEntry(type: string, id: number | null | undefined): Promise<boolean> {',
    '    if (id == null) return true;',
    '    const cached = await this.lookups.get(type);',
    '    return cached?.table.data.some((entry) => entry.id === id && entry.isActive) ?? false;',
    '  }',
  );

  const readList = lines(
    `  async readList(criteria: ${pascal}_ReadListInput_Criteria): Promise<Output<${pascal}_ReadListOutput[]>> {`,
    `    const { rows, totalCount, nextCursor } = await readListRows<${listFields}, ListRow>(this.storage, ${camel}List, criteria, this.options);`,
    '    return Output.of(rows.map((r) => this.listItem(r)), totalCount, nextCursor);',
    '  }',
  );

  return lines(
    header(spec).trimEnd(),
    importLine([
      'type Kysely', 'type ListDefinition', 'type ListLimits', lookups.length > 0 && 'type LookupCache', 'type Selectable', 'type Storage', 'type Tables',
      'MESSAGES', 'Output', 'applyMergePatch', 'currentErrors', 'readListRows', 'updateFieldsOf',
    ], 'restlayer'),
    modelTypesImport(spec, [filterable.length > 0 && `${pascal}FilterField`, `${pascal}SortField`].filter((n): n is string => Boolean(n))),
    `import { ${pascal}UpdateData } from './${spec.kebab}-models.js';`,
    `import type { I${pascal}Service } from './${spec.kebab}-service.js';`,
    importLine([`${pascal}Table`, `${pascal}Tables`], `./${spec.kebab}-tables.js`, true),
    '',
    `const updateFields = updateFieldsOf(${pascal}UpdateData);`,
    '',
    `const listColumns = [${quoted(listColumns)}] as const;`,
    `type ListRow = Pick<Selectable<${pascal}Table>, (typeof listColumns)[number]>;`,
    '',
    `/** The list: ${lowerHuman(spec)} records, filtered and sorted by the wire fields. */`,
    `export const ${camel}List: ListDefinition<${listFields}> = {`,
    `  table: '${table}',`,
    `  alias: '${table}',`,
    `  id: '${table}.${idColumn}',`,
    '  columns: {',
    `    ${id}: '${table}.${idColumn}',`,
    ...listed.map((f) => `    ${f.name}: '${table}.${f.column}',`),
    '  },',
    `  select: listColumns.map((column) => \`${table}.\${column}\`),`,
    `  notNull: [${quoted([id, ...listed.filter((f) => f.required).map((f) => f.name)])}],`,
    fullTextFields(spec).length > 0 && `  fullText: [${quoted(fullTextFields(spec).map((f) => f.name))}],`,
    // A criterion longer than the column holds matches nothing: answered without a query.
    limitedText.length > 0 && `  maxLength: { ${limitedText.map((f) => `${f.name}: ${f.max}`).join(', ')} },`,
    '};',
    '',
    `export type ${pascal}ServiceOptions = ListLimits;`,
    '',
    `export class Sql${pascal}Service implements I${pascal}Service {`,
    `  private readonly db: Kysely<Tables & ${pascal}Tables>;`,
    '',
    constructor,
    '',
    `  private listItem(r: ListRow): ${pascal}_ReadListOutput {`,
    usesValues && '    const v = this.storage.values;',
    '    return {',
    `      ${id}: r.${idColumn},`,
    ...spec.fields.map((f) => `      ${f.name}: ${fromColumn(f)},`),
    '    };',
    '  }',
    '',
    `  private notFound(${id}: number) {`,
    `    currentErrors().add(MESSAGES.Entity_NotFound({ entity: ${quoted([spec.human])}, id: ${id} }));`,
    '  }',
    '',
    `  async read(${id}: number): Promise<Output<${pascal}_ReadOutput>> {`,
    `    const r = await this.db.selectFrom('${table}')`,
    "      .select([...listColumns, 'revision_number', 'modified_date'])",
    `      .where('${idColumn}', '=', ${id})`,
    '      .executeTakeFirst();',
    '    if (!r) {',
    `      this.notFound(${id});`,
    '      return Output.of();',
    '    }',
    '    return Output.of({ ...this.listItem(r), revisionNumber: r.revision_number, modifiedDate: this.storage.values.toDate(r.modified_date) });',
    '  }',
    '',
    readList,
    checkData,
    '',
    '  /** The stored form of the fields: dates and booleans as the provider keeps them, an optional field without value as NULL. */',
    `  private columnsOf(data: ${pascal}_CreateInput_Data) {`,
    usesValues && '    const v = this.storage.values;',
    '    return {',
    ...spec.fields.map((f) => `      ${f.column}: ${toColumn(f)},`),
    '    };',
    '  }',
    '',
    `  async create(data: ${pascal}_CreateInput_Data): Promise<Output<${pascal}_CreateOutput>> {`,
    lookups.length > 0 && '    await this.checkData(data);',
    '    const now = new Date();',
    `    const { ${idColumn} } = await this.db.insertInto('${table}')`,
    '      .values({ ...this.columnsOf(data), revision_number: 1, modified_date: this.storage.values.date(now) })',
    `      .returning('${idColumn}')`,
    '      .executeTakeFirstOrThrow();',
    `    return Output.of({ ${id}: ${idColumn}, revisionNumber: 1, modifiedDate: now });`,
    '  }',
    '',
    `  async update(${id}: number, data: ${pascal}_UpdateInput_Data): Promise<Output<${pascal}_UpdateOutput>> {`,
    lookups.length > 0 && '    await this.checkData(data);',
    '    const now = new Date();',
    '    const v = this.storage.values;',
    '    const { revisionNumber } = data;',
    '    // The revision in the WHERE makes check-and-write one atomic step: of concurrent writers, one wins.',
    `    const updated = await this.db.updateTable('${table}')`,
    "      .set((eb) => ({ ...this.columnsOf(data), revision_number: eb('revision_number', '+', 1), modified_date: v.date(now) }))",
    `      .where('${idColumn}', '=', ${id})`,
    "      .$if(revisionNumber != null, (q) => q.where('revision_number', '=', revisionNumber!))",
    "      .returning(['revision_number', 'modified_date'])",
    '      .executeTakeFirst();',
    '    if (updated) return Output.of({ revisionNumber: updated.revision_number, modifiedDate: v.toDate(updated.modified_date) });',
    '',
    `    const current = await this.db.selectFrom('${table}').select('revision_number').where('${idColumn}', '=', ${id}).executeTakeFirst();`,
    `    if (!current) this.notFound(${id});`,
    '    else {',
    '      currentErrors().add(MESSAGES.Entity_Concurrency({',
    `        record: \`${spec.human} \${${id}}\`, sent: revisionNumber, now: current.revision_number, property: 'revisionNumber',`,
    '      }));',
    '    }',
    '    return Output.of();',
    '  }',
    '',
    `  patch(${id}: number, data: ${pascal}_PatchInput_Data): Promise<Output<${pascal}_UpdateOutput>> {`,
    '    return applyMergePatch({',
    '      patch: data,',
    `      read: () => this.read(${id}),`,
    '      toUpdate: updateFields,',
    `      update: (merged) => this.update(${id}, merged),`,
    '    });',
    '  }',
    '',
    `  async delete(${id}: number): Promise<Output> {`,
    `    const result = await this.db.deleteFrom('${table}').where('${idColumn}', '=', ${id}).executeTakeFirst();`,
    `    if (result.numDeletedRows === 0n) this.notFound(${id});`,
    '    return Output.of();',
    '  }',
    '}',
    '',
  );
}
