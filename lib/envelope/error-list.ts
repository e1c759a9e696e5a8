import { type ErrorMessage, type ErrorType, type MessageOptions, isError, message, statusOf } from './error-message.js';

/** The highest status among error messages, or `fallback` when there are none. */
export function derivedStatus(messages: readonly ErrorMessage[], fallback = 200): number {
  let status = 0;
  for (const m of messages) if (isError(m)) status = Math.max(status, statusOf(m));
  return status || fallback;
}

/** The problems found while serving one request. Services reach the current one through `currentErrors()`. */
export class ErrorList {
  readonly messages: ErrorMessage[] = [];

  add(m: ErrorMessage): this {
    this.messages.push(m);
    return this;
  }

  addAll(messages: Iterable<ErrorMessage>): this {
    for (const m of messages) if (!this.messages.includes(m)) this.messages.push(m);
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
