import { Output, route } from 'restlayer';

/**
 * Test-only: `GET /caller-attributes` echoes who the caller is and the attributes the server handed the route, so a
 * test can watch over HTTP when a change made by `restlayer user set-attribute` reaches a running server. Secured
 * like every route: the attributes are those of the authenticated caller.
 */
export const GET = route({
  summary: 'Test probe: the caller and its attributes.',
  // A test probe: any signed-in caller.
  authenticated: true,
  async handle({ principal }): Promise<Output<unknown>> {
    return Output.of({ userName: principal?.userName, authenticationType: principal?.authenticationType, attributes: principal?.attributes });
  },
});
