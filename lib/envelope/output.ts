import type { ErrorMessage } from './error-message.js';
import { currentErrors } from './request-scope.js';

/** What every service operation answers: the result plus the messages recorded while producing it. */
export class Output<T = void> {
  constructor(
    readonly result: T | undefined,
    readonly messages: ErrorMessage[] = [],
    readonly totalCount?: number,
    /** On lists paged with `cursor`: the cursor of the next page, while there is one. */
    readonly nextCursor?: string,
  ) {}

  /** An output carrying the current request's messages. */
  static of<T>(result?: T, totalCount?: number, nextCursor?: string): Output<T> {
    return new Output(result, currentErrors().messages, totalCount, nextCursor);
  }
}
