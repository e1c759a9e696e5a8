import type { OperationTable, Output, RestClient } from 'restlayer/client';
import type { INoteService, Note, NoteInput } from './note.js';

const operations = {
  list: { verb: 'GET', path: '/note' },
  create: { verb: 'POST', path: '/note' },
} as const satisfies OperationTable<INoteService>;

/** INoteService over HTTP, for clients (Node or a browser bundle). */
export class NoteProxy implements INoteService {
  constructor(private readonly client: RestClient) {}

  list(): Promise<Output<Note[]>> {
    return this.client.call(operations.list);
  }

  /** The server takes the author from the caller's token. */
  create(input: NoteInput, _author?: string): Promise<Output<Note>> {
    return this.client.call(operations.create, { body: input });
  }
}
