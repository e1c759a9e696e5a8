/**
 * What an operator token may do: one action of the CLI against a running server (`restlayer lookup flush`,
 * `restlayer user unlock` without Redis). A route names the action it accepts such a token for; no other accepts it.
 */
export type OperatorAction = 'lookup-table.flush' | 'login-throttle.unlock';
