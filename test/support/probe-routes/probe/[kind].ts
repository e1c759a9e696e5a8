import {
  type ErrorType, Output, ServiceError, type Severity, currentErrors, message, model, route, text,
} from 'restlayer';

/**
 * Test-only routes (served with `startTestServer({ routesDir })`) that make the envelope runner answer what
 * the sales order service never does: any message type or severity, a result next to an error, a throw.
 *
 * - `GET /probe/throw`: records a Warning, then throws a plain Error (an unhandled defect).
 * - `GET /probe/service-error`: throws a ServiceError carrying one Concurrency message.
 * - `GET /probe/nulls`: a result with null properties at several levels.
 * - `GET /probe/null-result`: a null result.
 * - `GET /probe/<Type>-<Severity>[-<Type>-<Severity>...]`: one message per pair, plus the result { ok: true }.
 */
export const GET = route({
  summary: 'Test probe.',
  anonymous: true,
  params: model({ kind: text({ min: 1 }) }),
  async handle({ params }): Promise<Output<unknown>> {
    const errors = currentErrors();
    switch (params.kind) {
      case 'throw':
        errors.warning('Probe_Before', 'Recorded before the throw.');
        throw new Error('kaboom: internal detail');
      case 'service-error':
        throw new ServiceError([message('Concurrency', 'Probe_Conflict', 'Conflict.')]);
      case 'nulls':
        return Output.of({ a: 1, b: null, nested: { c: null, d: 'x', list: [1, null, { e: null, f: 2 }] }, when: new Date(Date.UTC(2024, 0, 2)) });
      case 'null-result':
        return Output.of(null);
      default: {
        const parts = params.kind.split('-');
        for (let i = 0; i + 1 < parts.length; i += 2) {
          errors.add(message(parts[i] as ErrorType, `Probe_${parts[i]}`, `A ${parts[i]} message.`, { severity: parts[i + 1] as Severity }));
        }
        return Output.of({ ok: true });
      }
    }
  },
});
