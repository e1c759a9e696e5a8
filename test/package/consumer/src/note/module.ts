import { type Generated, type Kysely, Output, type Storage, type Tables, serviceModule } from 'restlayer';
import type { INoteService, Note, NoteInput } from './note.js';

type NoteTables = {
  note: { note_id: Generated<number>; text: string; author: string };
};

class SqlNoteService implements INoteService {
  private readonly db: Kysely<Tables & NoteTables>;

  constructor(storage: Storage) {
    this.db = storage.db.withTables<NoteTables>();
  }

  async list(): Promise<Output<Note[]>> {
    const rows = await this.db.selectFrom('note').select(['note_id', 'text', 'author']).orderBy('note_id').execute();
    return Output.of(rows.map((r) => ({ noteId: r.note_id, text: r.text, author: r.author })));
  }

  async create(input: NoteInput, author: string): Promise<Output<Note>> {
    const { note_id } = await this.db.insertInto('note').values({ text: input.text, author }).returning('note_id').executeTakeFirstOrThrow();
    return Output.of({ noteId: note_id, text: input.text, author });
  }
}

export const noteModule = serviceModule({
  name: 'note',
  migrations: (dialect) => ({
    '0001-note': {
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('note')
          .addColumn('note_id', 'integer', (c) => dialect.identity(c))
          .addColumn('text', 'varchar(200)', (c) => c.notNull())
          .addColumn('author', 'varchar(100)', (c) => c.notNull())
          .execute();
      },
    },
  }),
  // A lookup table of the application's own: what a lookup field of a scaffolded service (lookup=currency) may name.
  lookups: (cache) => {
    cache.register('currency', async () => ({
      type: 'currency',
      caseSensitive: false,
      data: [
        { id: 1, text: 'Euro', isActive: true, attributes: {} },
        { id: 2, text: 'US dollar', isActive: true, attributes: {} },
        { id: 3, text: 'French franc', isActive: false, attributes: {} },
      ],
    }));
  },
  create: ({ storage }): { note: INoteService } => ({ note: new SqlNoteService(storage) }),
});
