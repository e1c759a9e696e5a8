import { upperFirst } from '../names.js';
import type { ChildSpec, FieldSpec, ServiceSpec } from '../spec.js';
import { lines, quoted } from './code.js';
import { aChild, anOf } from './child-models.js';
import { fromColumn, toColumn } from './columns.js';

/** The child's model types the service files import. */
export const childModelTypes = (child: ChildSpec) => [
  `${child.pascal}_CreateInput_Data`, `${child.pascal}_PatchInput_Data`, `${child.pascal}_ReadOutput`, `${child.pascal}_UpdateInput_Data`,
  `${child.pascal}_WriteOutput`,
];

const uses = (fields: FieldSpec[]) => fields.some((f) => f.type === 'date' || f.type === 'boolean' || f.type === 'money');

/** Module-level code of the child collection in sql-<name>-service.ts: its columns and the document's description. */
export function childDeclarations(spec: ServiceSpec, child: ChildSpec): string {
  const { table, idColumn } = spec;
  const columns = [child.idColumn, ...child.fields.map((f) => f.column)];
  return lines(
    `const ${child.camel}Columns = [${quoted(columns)}] as const;`,
    `type ${child.pascal}Row = Pick<Selectable<${child.pascal}Table>, (typeof ${child.camel}Columns)[number]>;`,
    `const ${child.camel}UpdateFields = updateFieldsOf(${child.pascal}UpdateData);`,
    '',
    `/** The ${spec.human.toLowerCase()}'s totals as the wire carries them. */`,
    child.totals.length
      ? `type ${spec.pascal}Totals = { ${child.totals.map((t) => `${t.name}: number`).join('; ')} };`
      : `type ${spec.pascal}Totals = Record<string, never>;`,
    `/** ${upperFirst(aChild(child))} as a merge patch of it starts from: with the ${spec.human.toLowerCase()}'s revision and totals. */`,
    `type ${child.pascal}Current = ${child.pascal}_ReadOutput & { revisionNumber: number; modifiedDate: Date; totals: ${spec.pascal}Totals };`,
    '',
    '/**',
    ` * The ${spec.human.toLowerCase()} document: the record and its ${child.plural}, changed together (restlayer's writeDocument and`,
    ` * createDocument): every ${child.segment} write locks the record, checks its revision, ${child.totals.length ? 'recomputes its totals, ' : ''}and bumps its revision in one transaction.`,
    ' */',
    `function ${spec.camel}Document(${child.totals.length ? 'values: SqlValues' : ''}): DocumentSpec<Tables & ${spec.pascal}Tables, ${spec.pascal}Totals> {`,
    '  return {',
    `    parent: { table: '${table}', key: '${idColumn}', entity: '${spec.human}' },`,
    `    child: { table: '${child.table}', key: '${child.idColumn}', parentKey: '${idColumn}', entity: '${child.human}' },`,
    child.totals.length
      ? lines(
        `    async totals(trx, ${spec.id}) {`,
        `      const sums = await trx.selectFrom('${child.table}')`,
        `        .select((eb) => [${child.totals.map((t) => `eb.fn.sum<number | string | null>('${t.of.column}').as('${t.of.column}')`).join(', ')}])`,
        `        .where('${idColumn}', '=', ${spec.id})`,
        '        .executeTakeFirstOrThrow();',
        '      // Summed by the store in decimal (PostgreSQL numeric, SQLite integer ten-thousandths): exact.',
        `      const wire: ${spec.pascal}Totals = { ${child.totals.map((t) => `${t.name}: values.toMoney(sums.${t.of.column})`).join(', ')} };`,
        '      // A total too large for its column is a 400 Amount_TooLarge on it (values.money throws it), and nothing is written.',
        `      return { columns: { ${child.totals.map((t) => `${t.column}: values.money(wire.${t.name}, '${t.name}')`).join(', ')} }, wire };`,
        '    },',
      )
      : '    totals: async () => ({ columns: {}, wire: {} }),',
    '  };',
    '}',
  );
}

/** The class members of the child collection: reads of the record with its children, and the child's own verbs. */
export function childMembers(spec: ServiceSpec, child: ChildSpec): string {
  const { pascal, id, idColumn, table } = spec;
  const { short, plural } = child;
  const cid = child.id;
  const write = (what: string) => `${child.pascal}_WriteOutput`;
  return lines(
    '',
    `  private ${child.camel}Of(r: ${child.pascal}Row): ${child.pascal}_ReadOutput {`,
    uses(child.fields) && '    const v = this.storage.values;',
    '    return {',
    `      ${cid}: r.${child.idColumn},`,
    ...child.fields.map((f) => `      ${f.name}: ${fromColumn(f)},`),
    '    };',
    '  }',
    '',
    `  /** The stored form of ${aChild(child)}'s fields. */`,
    `  private ${child.camel}ColumnsOf(data: Omit<${child.pascal}_UpdateInput_Data, 'revisionNumber'>) {`,
    uses(child.fields) && '    const v = this.storage.values;',
    '    return {',
    ...child.fields.map((f) => `      ${f.column}: ${toColumn(f)},`),
    '    };',
    '  }',
    '',
    `  /** The ${plural} of ${anOf(spec.human.toLowerCase())} by id, as they are stored now. */`,
    `  private async ${plural}Of(${id}: number): Promise<${child.pascal}_ReadOutput[]> {`,
    `    const rows = await this.db.selectFrom('${child.table}').select(${child.camel}Columns)`,
    `      .where('${idColumn}', '=', ${id}).orderBy('${child.idColumn}').execute();`,
    `    return rows.map((r) => this.${child.camel}Of(r));`,
    '  }',
    '',
    `  async read${plural.charAt(0).toUpperCase()}${plural.slice(1)}(${id}: number): Promise<Output<${child.pascal}_ReadOutput[]>> {`,
    `    const found = await this.${plural}Of(${id});`,
    `    if (!found.length && !(await this.db.selectFrom('${table}').select('${idColumn}').where('${idColumn}', '=', ${id}).executeTakeFirst())) {`,
    `      this.notFound(${id});`,
    '      return Output.of();',
    '    }',
    '    return Output.of(found);',
    '  }',
    '',
    `  async read${short}(${id}: number, ${cid}: number): Promise<Output<${child.pascal}_ReadOutput>> {`,
    `    const r = await this.db.selectFrom('${child.table}').select(${child.camel}Columns)`,
    `      .where('${idColumn}', '=', ${id}).where('${child.idColumn}', '=', ${cid}).executeTakeFirst();`,
    `    if (r) return Output.of(this.${child.camel}Of(r));`,
    `    // ${upperFirst(aChild(child))} of another ${spec.human.toLowerCase()} is not found here, as an unknown id is not.`,
    `    const parent = await this.db.selectFrom('${table}').select('${idColumn}').where('${idColumn}', '=', ${id}).executeTakeFirst();`,
    `    if (!parent) this.notFound(${id});`,
    `    else currentErrors().add(MESSAGES.Entity_NotFound({ entity: '${child.human}', id: ${cid} }));`,
    '    return Output.of();',
    '  }',
    '',
    `  async create${short}(${id}: number, data: ${child.pascal}_CreateInput_Data): Promise<Output<${write('create')}>> {`,
    '    const { revisionNumber, ...fields } = data;',
    `    const written = await writeDocument(this.storage, this.db, this.document, { parentId: ${id}, revisionNumber }, async (trx) => {`,
    `      const row = await trx.insertInto('${child.table}').values({ ${idColumn}: ${id}, ...this.${child.camel}ColumnsOf(fields) })`,
    `        .returning('${child.idColumn}').executeTakeFirstOrThrow();`,
    `      return row.${child.idColumn};`,
    '    });',
    '    if (!written) return Output.of();',
    `    return Output.of({ ${cid}: written.result, ...written.totals, revisionNumber: written.revisionNumber, modifiedDate: written.modifiedDate });`,
    '  }',
    '',
    `  async update${short}(${id}: number, ${cid}: number, data: ${child.pascal}_UpdateInput_Data): Promise<Output<${write('update')}>> {`,
    '    const { revisionNumber, ...fields } = data;',
    `    const written = await writeDocument(this.storage, this.db, this.document, { parentId: ${id}, childId: ${cid}, revisionNumber }, async (trx) => {`,
    `      await trx.updateTable('${child.table}').set(this.${child.camel}ColumnsOf(fields))`,
    `        .where('${child.idColumn}', '=', ${cid}).where('${idColumn}', '=', ${id}).execute();`,
    '    });',
    '    if (!written) return Output.of();',
    '    return Output.of({ ...written.totals, revisionNumber: written.revisionNumber, modifiedDate: written.modifiedDate });',
    '  }',
    '',
    `  patch${short}(${id}: number, ${cid}: number, data: ${child.pascal}_PatchInput_Data): Promise<Output<${write('patch')}>> {`,
    '    return applyMergePatch({',
    '      patch: data,',
    `      read: () => this.${child.camel}WithRevision(${id}, ${cid}),`,
    `      toUpdate: ${child.camel}UpdateFields,`,
    `      update: (merged) => this.update${short}(${id}, ${cid}, merged),`,
    `      unchanged: ({ revisionNumber, modifiedDate, totals }: ${child.pascal}Current) => ({ ...totals, revisionNumber, modifiedDate }),`,
    '    });',
    '  }',
    '',
    `  /** ${upperFirst(aChild(child))} with the ${spec.human.toLowerCase()}'s revision and totals, read in one statement, as a merge patch starts from. */`,
    `  private async ${child.camel}WithRevision(${id}: number, ${cid}: number): Promise<Output<${child.pascal}Current>> {`,
    `    const r = await this.db.selectFrom('${child.table}')`,
    `      .innerJoin('${table}', '${table}.${idColumn}', '${child.table}.${idColumn}')`,
    `      .select([...${child.camel}Columns.map((c) => \`${child.table}.\${c}\` as const), '${table}.revision_number as parent__revision', '${table}.modified_date as parent__modified'${child.totals.map((t) => `, '${table}.${t.column} as parent__${t.column}'`).join('')}])`,
    `      .where('${child.table}.${idColumn}', '=', ${id}).where('${child.table}.${child.idColumn}', '=', ${cid})`,
    '      .executeTakeFirst();',
    '    if (!r) {',
    `      // Which of the two is missing, reported as reading the ${child.segment} reports it.`,
    `      await this.read${short}(${id}, ${cid});`,
    '      return Output.of();',
    '    }',
    child.totals.length > 0 && '    const v = this.storage.values;',
    `    const totals: ${pascal}Totals = { ${child.totals.map((t) => `${t.name}: v.toMoney(r.parent__${t.column})`).join(', ')} };`,
    `    return Output.of({ ...this.${child.camel}Of(r), revisionNumber: r.parent__revision, modifiedDate: this.storage.values.toDate(r.parent__modified), totals });`,
    '  }',
    '',
    `  async delete${short}(${id}: number, ${cid}: number, revisionNumber?: number | null): Promise<Output<${write('delete')}>> {`,
    `    const written = await writeDocument(this.storage, this.db, this.document, { parentId: ${id}, childId: ${cid}, revisionNumber }, async (trx) => {`,
    `      await trx.deleteFrom('${child.table}').where('${child.idColumn}', '=', ${cid}).where('${idColumn}', '=', ${id}).execute();`,
    '    });',
    '    if (!written) return Output.of();',
    '    return Output.of({ ...written.totals, revisionNumber: written.revisionNumber, modifiedDate: written.modifiedDate });',
    '  }',
  );
}
