import { type ChildSpec, type ServiceSpec, fullTextFields } from '../spec.js';
import { filterableFields, header, importLine, lines, lookupCode, lookupFields, lowerHuman, quoted, sortableFields } from './code.js';
import { childDeclarations, childMembers, childModelTypes } from './child-service.js';
import { fromColumn, toColumn } from './columns.js';
import { modelTypesImport } from './service.js';

/** services/<name>/sql-<name>-service.ts: the implementation over the store. */
export function sqlServiceFile(spec: ServiceSpec): string {
  const { pascal, camel, id, idColumn, table, child } = spec;
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
    child && `    this.document = ${camel}Document(${child.totals.length ? 'storage.values' : ''});`,
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
      child && 'type DocumentSpec', 'type Kysely', 'type ListDefinition', 'type ListLimits', lookups.length > 0 && 'type LookupCache', 'type Selectable', child && child.totals.length > 0 && 'type SqlValues', 'type Storage', 'type Tables',
      'MESSAGES', 'Output', 'applyMergePatch', child && 'createDocument', 'currentErrors', child && 'inTransaction', 'readListRows', 'updateFieldsOf',
      child && 'writeDocument',
    ], 'restlayer'),
    modelTypesImport(spec, [
      ...(child ? childModelTypes(child) : []), filterable.length > 0 && `${pascal}FilterField`, `${pascal}SortField`,
    ].filter((n): n is string => Boolean(n))),
    importLine([`${pascal}UpdateData`, child && `${child.pascal}UpdateData`], `./${spec.kebab}-models.js`),
    `import type { I${pascal}Service } from './${spec.kebab}-service.js';`,
    importLine([`${pascal}Table`, `${pascal}Tables`, child && `${child.pascal}Table`], `./${spec.kebab}-tables.js`, true),
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
    child && childDeclarations(spec, child),
    '',
    `export type ${pascal}ServiceOptions = ListLimits;`,
    '',
    `export class Sql${pascal}Service implements I${pascal}Service {`,
    `  private readonly db: Kysely<Tables & ${pascal}Tables>;`,
    child && `  private readonly document: DocumentSpec<Tables & ${pascal}Tables, ${pascal}Totals>;`,
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
    child ? childRead(spec, child) : lines(
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
    ),
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
    child ? childCreate(spec, child) : lines(
    `    const { ${idColumn} } = await this.db.insertInto('${table}')`,
    '      .values({ ...this.columnsOf(data), revision_number: 1, modified_date: this.storage.values.date(now) })',
    `      .returning('${idColumn}')`,
    '      .executeTakeFirstOrThrow();',
    `    return Output.of({ ${id}: ${idColumn}, revisionNumber: 1, modifiedDate: now });`,
    ),
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
    child ? lines(
      `    // The ${lowerHuman(spec)} goes with its ${child.plural}, in one transaction.`,
      '    const result = await inTransaction(this.db, async (trx) => {',
      `      await trx.deleteFrom('${child.table}').where('${idColumn}', '=', ${id}).execute();`,
      `      return trx.deleteFrom('${table}').where('${idColumn}', '=', ${id}).executeTakeFirst();`,
      '    });',
    ) : `    const result = await this.db.deleteFrom('${table}').where('${idColumn}', '=', ${id}).executeTakeFirst();`,
    `    if (result.numDeletedRows === 0n) this.notFound(${id});`,
    '    return Output.of();',
    '  }',
    child && childMembers(spec, child),
    '}',
    '',
  );
}

/** read() of a record with children: the record and its children as of one moment. */
function childRead(spec: ServiceSpec, child: ChildSpec): string {
  const { pascal, id, idColumn, table } = spec;
  return lines(
    `  async read(${id}: number): Promise<Output<${pascal}_ReadOutput>> {`,
    `    // Every ${child.segment} write bumps the record's revision in its transaction: the same revision before and after reading`,
    `    // the ${child.plural} means no write came between, so ${child.totals.length ? 'the totals, ' : ''}the ${child.plural} and the revision agree (else read again).`,
    '    for (;;) {',
    `      const r = await this.db.selectFrom('${table}')`,
    `        .select([...listColumns, ${quoted([...child.totals.map((t) => t.column), 'revision_number', 'modified_date'])}])`,
    `        .where('${idColumn}', '=', ${id})`,
    '        .executeTakeFirst();',
    '      if (!r) {',
    `        this.notFound(${id});`,
    '        return Output.of();',
    '      }',
    `      const children = await this.${child.plural}Of(${id});`,
    `      const now = await this.db.selectFrom('${table}').select('revision_number').where('${idColumn}', '=', ${id}).executeTakeFirst();`,
    '      if (now?.revision_number !== r.revision_number) continue;',
    '      const v = this.storage.values;',
    '      return Output.of({',
    '        ...this.listItem(r),',
    ...child.totals.map((t) => `        ${t.name}: v.toMoney(r.${t.column}),`),
    `        ${child.plural}: children,`,
    '        revisionNumber: r.revision_number,',
    '        modifiedDate: v.toDate(r.modified_date),',
    '      });',
    '    }',
    '  }',
  );
}

/** The body of create() of a record with children: the whole document in one transaction, or nothing. */
function childCreate(spec: ServiceSpec, child: ChildSpec): string {
  const { id, idColumn, table } = spec;
  return lines(
    `    // The ${lowerHuman(spec)} and its ${child.plural} stand or fall together${child.totals.length ? ', with its totals' : ''}.`,
    '    const { parentId } = await createDocument(this.db, this.document, async (trx) => {',
    `      const row = await trx.insertInto('${table}')`,
    `        .values({ ...this.columnsOf(data), ${child.totals.map((t) => `${t.column}: this.storage.values.money(0), `).join('')}revision_number: 1, modified_date: this.storage.values.date(now) })`,
    `        .returning('${idColumn}')`,
    '        .executeTakeFirstOrThrow();',
    `      return { parentId: row.${idColumn} };`,
    '    }, async (trx, parentId) => {',
    `      const items = data.${child.plural} ?? [];`,
    '      if (!items.length) return;',
    `      await trx.insertInto('${child.table}').values(items.map((item) => ({ ${idColumn}: parentId, ...this.${child.camel}ColumnsOf(item) }))).execute();`,
    '    });',
    `    return Output.of({ ${id}: parentId, revisionNumber: 1, modifiedDate: now });`,
  );
}
