import { type Infer, type Output, model, text } from 'restlayer';

/** What POST /note takes. */
export const NoteInput = model({ text: text({ min: 1, max: 200 }) });
export type NoteInput = Infer<typeof NoteInput>;

export interface Note {
  noteId: number;
  text: string;
  /** The user who wrote it. */
  author: string;
}

export interface INoteService {
  list(): Promise<Output<Note[]>>;
  create(input: NoteInput, author: string): Promise<Output<Note>>;
}
