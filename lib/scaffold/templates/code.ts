import type { ServiceSpec } from '../spec.js';

/**
 * Pieces of generated TypeScript shared by the templates. Generated files import the layer only by its public entry
 * points (`restlayer`, `restlayer/client`, `restlayer/testing`), and the project's own files by relative paths the
 * writer computes from the project's layout (lib/scaffold/layout.ts).
 */

/** Where one generated file is, as its imports of the project's own files need it. */
export interface FileContext {
  /** The import specifier, from this file, of the project's module list file (it exports `modules`, `route`, `application`). */
  modules: string;
  /** The import specifier, from this file, of a file of the service's folder, named without extension (`purchase-order-proxy`). */
  service(name: string): string;
}

/** One generated file's text, from the service and where the file is. */
export type Template = (spec: ServiceSpec, at: FileContext) => string;

/** Lines joined with newlines, skipping the `false`/`undefined` of conditional lines. */
export const lines = (...parts: (string | false | undefined)[]) => parts.filter((p): p is string => typeof p === 'string').join('\n');

/** `Purchase order` → `purchase order`, for the middle of a sentence. */
export const lowerHuman = (spec: ServiceSpec) => spec.human.toLowerCase();
