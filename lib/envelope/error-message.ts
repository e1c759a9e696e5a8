export type Severity = 'Info' | 'Warning' | 'Error' | 'Critical';
export type ErrorType =
  | 'Validation' | 'Functional' | 'Security' | 'Data' | 'Concurrency' | 'External' | 'System' | 'Message';

/** One entry of an envelope's `messages`. `status` overrides the status the type implies and is never serialised. */
export interface ErrorMessage {
  code: string;
  message: string;
  severity: Severity;
  type: ErrorType;
  property?: string;
  status?: number;
  /**
   * Never sent: the catalogue entry the text was made from, its values, and the subject an input text follows, so
   * that the answer can be written in the caller's language (lib/envelope/languages.ts). Absent on a message made
   * with a fixed text, which is sent as it is.
   */
  source?: MessageSource;
}

export interface MessageSource {
  /** The code (or the template, for codes made from a resource's name) whose texts render this message. */
  key: string;
  params?: Readonly<Record<string, unknown>>;
  /** An input message's property name as the text shows it, put in front of the predicate in every language. */
  subject?: string;
}

const statusOfType: Record<ErrorType, number> = {
  Validation: 400,
  Functional: 400,
  Security: 403,
  Data: 404,
  Concurrency: 409,
  External: 502,
  System: 500,
  Message: 500,
};

export function isError(m: ErrorMessage): boolean {
  return m.severity === 'Error' || m.severity === 'Critical';
}

export function statusOf(m: ErrorMessage): number {
  return m.status ?? statusOfType[m.type];
}

export interface MessageOptions {
  property?: string;
  status?: number;
  severity?: Severity;
}

export function message(type: ErrorType, code: string, text: string, options: MessageOptions = {}): ErrorMessage {
  const m: ErrorMessage = { code, message: text, severity: options.severity ?? 'Error', type };
  if (options.property !== undefined) m.property = options.property;
  if (options.status !== undefined) m.status = options.status;
  return m;
}

/** The wire form: nulls are not written and the status stays on the server. */
export function toWire(m: ErrorMessage): Omit<ErrorMessage, 'status'> {
  const wire: Omit<ErrorMessage, 'status'> = { code: m.code, message: m.message, severity: m.severity, type: m.type };
  if (m.property != null) wire.property = m.property;
  return wire;
}
