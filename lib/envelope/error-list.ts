import { type ErrorMessage, type ErrorType, type MessageOptions, isError, message, statusOf } from './error-message.js';
import { MESSAGES } from './message-catalogue.js';

/** The highest status among error messages, or `fallback` when there are none. */
export function derivedStatus(messages: readonly ErrorMessage[], fallback = 200): number {
  let status = 0;
  for (const m of messages) if (isError(m)) status = Math.max(status, statusOf(m));
  return status || fallback;
}

/**
 * How many messages one answer lists. Past it one more message, `Messages_Truncated`, says that more were found: a
 * body of 90,000 unknown properties once answered 90,000 messages (12 MB from a 1 MB request). A person fixes a
 * request a hundred problems at a time at most, and a program needs only the first to know the request is wrong.
 */
export const MAX_MESSAGES = 100;

const severityRank = { Info: 0, Warning: 1, Error: 2, Critical: 3 } as const;

/** Which of two messages weighs more on the answer: an error over anything else, then the higher status. */
function weightOf(m: ErrorMessage): number {
  return isError(m) ? 1_000 * severityRank[m.severity] + statusOf(m) : severityRank[m.severity];
}

/** The message that stands for those left out: as heavy as the heaviest of them, so the answer's status stays. */
function truncated(heaviest: ErrorMessage): ErrorMessage {
  return MESSAGES.Messages_Truncated({ max: MAX_MESSAGES, type: heaviest.type, severity: heaviest.severity, status: statusOf(heaviest) });
}

/** The problems found while serving one request. Services reach the current one through `currentErrors()`. */
export class ErrorList {
  readonly messages: ErrorMessage[] = [];
  /** Every message listed, by identity: merging a list's own messages again (a ServiceError it threw) adds nothing. */
  readonly #listed = new Set<ErrorMessage>();
  /** The heaviest message left out past `MAX_MESSAGES`, which the last entry of `messages` stands for. */
  #heaviestLeftOut?: ErrorMessage;

  add(m: ErrorMessage): this {
    if (this.#listed.has(m)) return this;
    if (this.messages.length < MAX_MESSAGES) {
      this.messages.push(m);
      this.#listed.add(m);
    } else if (!this.#heaviestLeftOut || weightOf(m) > weightOf(this.#heaviestLeftOut)) {
      this.#heaviestLeftOut = m;
      const stand = truncated(m);
      this.#listed.add(stand);
      this.messages[MAX_MESSAGES] = stand;
    }
    return this;
  }

  /** Linear: each message is looked up once by identity, and past the bound only counted against the heaviest. */
  addAll(messages: Iterable<ErrorMessage>): this {
    for (const m of messages) this.add(m);
    return this;
  }

  error(type: ErrorType, code: string, text: string, options?: MessageOptions): this {
    return this.add(message(type, code, text, options));
  }

  warning(code: string, text: string, property?: string): this {
    return this.add(message('Message', code, text, { severity: 'Warning', property }));
  }

  get hasErrors(): boolean {
    return this.messages.some(isError);
  }

  /** Stops the operation when errors were recorded; the envelope middleware reports them. */
  abortIfHasErrors(): void {
    if (this.hasErrors) throw new ServiceError(this.messages);
  }
}

/** Carries messages out of a service through a throw; the error parser unwraps it. */
export class ServiceError extends Error {
  constructor(readonly messages: readonly ErrorMessage[]) {
    super(messages.map((m) => m.message).join(' '));
    this.name = 'ServiceError';
  }
}
