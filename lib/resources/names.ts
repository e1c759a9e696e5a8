/** The naming rules of resources: the client's (lib/client/resource-names.ts), so proxies and routes name alike. */
export { type Camel, type DefaultKey, camelCase, humanName, kebabCase, pascalCase, snakeCase, upperFirst, wordsOf } from '../client/resource-names.js';
