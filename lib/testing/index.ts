/**
 * Helpers for an application's own tests (`restlayer/testing`): a real server of the application on an ephemeral
 * port, over an SQLite file of its own, with tokens it accepts.
 */
export { type CallInit, type JsonObject, type TestReply, type TestServer, type TestServerOptions, startTestServer } from './test-server.js';
