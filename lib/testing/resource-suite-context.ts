import assert from 'node:assert/strict';
import type { AnyResource } from '../resources/resource.js';
import type { ResourceField, ResourceModel } from '../resources/model.js';
import type { Application } from '../server.js';
import { expectOk } from './assertions.js';
import { GeneratedValues, type Input } from './resource-suite-samples.js';
import type { CallInit, JsonObject, TestReply, TestServer } from './test-server.js';

/** How the suite reaches the records of one record scope the resource declares. */
export interface ScopeFixture {
  /** The user attributes of a caller limited to the scope (`{ salesPersonId: '279' }`). */
  attributes: Record<string, string>;
  /** Brings record `id` into that caller's reach (for customers: an order of the caller's sales person). */
  enter(server: TestServer, id: number): Promise<void>;
}

export interface ResourceSuiteOptions {
  /** The application whose server the suite starts (its modules must serve the resource). */
  application: Application;
  /** The declared resource under test (`resource({...})`). */
  resource: AnyResource;
  /**
   * A valid create input of record `n` (0, 1, 2…), for a resource whose rules forbid values generated from the field
   * types. Records of different `n` hold different values of unique fields. When given, the suite never sends a valid
   * value it made up itself: it keeps to these records, and varies them only into input the layer must refuse.
   */
  sample?: (n: number, server: TestServer) => Input | Promise<Input>;
  /**
   * Settings of the suite's server, in the configuration's shape (`{ Authorization: { Roles: { … } } }`): roles a
   * scope's `enter` needs, a feature the resource depends on. The suite adds roles of its own (`ResourceSuite…`).
   */
  config?: JsonObject;
  /** Per scope the resource declares, how to test it; a scope without one is listed as a pending test. */
  scopes?: Record<string, ScopeFixture>;
}

/** An id no record has: the largest the id column holds. */
export const UNKNOWN_ID = 2_147_483_647;

/** What the suite's sections share: the server (once started), the resource's names and a few calls. */
export class SuiteRun {
  server!: TestServer;
  private values!: GeneratedValues;
  private next = 0;
  readonly model: ResourceModel;
  readonly path: string;

  constructor(readonly options: ResourceSuiteOptions) {
    this.model = options.resource.model;
    this.path = `/${this.model.name}`;
  }

  /** Called by the suite's first hook. */
  started(server: TestServer): void {
    this.server = server;
    this.values = new GeneratedValues(server);
  }

  /** Whether values are generated (no `sample` given): then a test may send valid values it made up itself. */
  get generated(): boolean {
    return !this.options.sample;
  }

  get generator(): GeneratedValues {
    return this.values;
  }

  /** The fields an update takes. */
  get updateFields(): ResourceField[] {
    return this.model.fields.filter((f) => f.spec.input === 'write');
  }

  /** The optional fields an update may clear (no default, no initial value): absent from a read once cleared. */
  get clearable(): ResourceField[] {
    return this.updateFields.filter((f) => !f.spec.required && f.spec.default === undefined && f.spec.initially === undefined);
  }

  /** The required fields of an input only. */
  requiredOf(input: Input): Input {
    const names = new Set(this.model.fields.filter((f) => f.spec.required).map((f) => f.name));
    return Object.fromEntries(Object.entries(input).filter(([name]) => names.has(name)));
  }

  /** A create input nobody sent before (each call a new `n`). */
  async sample(): Promise<Input> {
    const n = this.next++;
    if (this.options.sample) return { ...(await this.options.sample(n, this.server)) };
    const record = await this.values.record(this.model.fields, n);
    // One child per collection, so the totals it keeps differ from record to record.
    for (const child of this.model.children) record[child.property] = [await this.values.record(child.fields, n)];
    return record;
  }

  /** `count` new children of a collection (generated), or those of a sample (the team's): at least one. */
  async children(property: string, count: number): Promise<Input[]> {
    const child = this.model.children.find((c) => c.property === property)!;
    if (this.options.sample) {
      const items = (await this.sample())[property];
      assert.ok(Array.isArray(items) && items.length, `the sample gives no ${property}: give some to test them`);
      return items as Input[];
    }
    const items: Input[] = [];
    for (let i = 0; i < count; i++) items.push(await this.values.record(child.fields, this.next++));
    return items;
  }

  /**
   * A change of one update field to a new sample's value, `{ [field]: value }`: the first update field that sample
   * gives a value (a team's sample may leave optional fields out); {} when it gives none.
   */
  async sampleChange(): Promise<Input> {
    const update = this.forUpdate(await this.sample());
    const field = this.updateFields.find((f) => update[f.name] != null);
    return field ? { [field.name]: update[field.name] } : {};
  }

  /** The same record as an update input: without the fields only a create takes. */
  forUpdate(input: Input): Input {
    const names = new Set(this.updateFields.map((f) => f.name.toLowerCase()));
    return Object.fromEntries(Object.entries(input).filter(([name]) => names.has(name.toLowerCase())));
  }

  call(path: string, init?: CallInit): Promise<TestReply> {
    return this.server.call(path, init);
  }

  item(id: number | string): string {
    return `${this.path}/${id}`;
  }

  /** Creates a record (201 asserted, naming `sample` when the input was generated) and answers its id. */
  async create(input?: Input): Promise<number> {
    const body = input ?? (await this.sample());
    const reply = await this.call(this.path, { method: 'POST', body });
    assert.equal(reply.status, 201, `create ${JSON.stringify(body)}: ${reply.text}${this.generated ? ' (values generated from the field types: give resourceSuite a sample your rules accept)' : ''}`);
    return reply.body.result[this.model.key] as number;
  }

  async read(id: number): Promise<Input> {
    return expectOk(await this.call(this.item(id))).result as Input;
  }

  put(id: number, body: Input, token?: string): Promise<TestReply> {
    return this.call(this.item(id), { method: 'PUT', body, ...(token ? { token } : {}) });
  }

  patch(id: number, body: Input, token?: string): Promise<TestReply> {
    return this.call(this.item(id), { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' }, ...(token ? { token } : {}) });
  }

  remove(id: number, token?: string): Promise<TestReply> {
    return this.call(this.item(id), { method: 'DELETE', ...(token ? { token } : {}) });
  }

  async count(token?: string): Promise<number> {
    return expectOk(await this.call(`${this.path}?take=0&getTotalCount=true`, token ? { token } : {})).totalCount as number;
  }

  /** Every record the caller lists, by id, walking the pages by cursor. */
  async listAll(token?: string): Promise<Input[]> {
    const items: Input[] = [];
    let cursor = '';
    for (let page = 0; page < 1000; page++) {
      const reply = await this.call(`${this.path}?take=100&cursor=${encodeURIComponent(cursor)}`, token ? { token } : {});
      const body = expectOk(reply);
      items.push(...(body.result as Input[]));
      if (!body.nextCursor) return items;
      cursor = body.nextCursor;
    }
    throw new Error(`${this.path}: more than 1000 pages`);
  }

  /** The ids of list items. */
  idsOf(items: readonly Input[]): number[] {
    return items.map((i) => i[this.model.key] as number);
  }
}
