// restlayer's response envelope, so that both sides answer the same bytes (the runner checks it).
export interface Message {
  code: string;
  message: string;
  severity: 'Error';
  type: 'Data' | 'Validation' | 'Concurrency';
  property?: string;
}

export const ok = <T>(result: T, totalCount?: number) => (totalCount == null ? { result, messages: [] } : { result, messages: [], totalCount });
export const failed = (...messages: Message[]) => ({ messages });
