import type {
  ActionInputOf, ChildInputOf, ChildRead, ChildWriteOf, CreateOf, CreateOutputOf, CriteriaOf, ListItemOf, PatchInputOf, ReadOf, ResourceService, UpdateOf,
} from '../resources/wire-types.js';
import type { ShapeOf } from './resource-proxy.js';

/**
 * A declared resource's wire types, named from the declaration's type (`Read<typeof customer>`): what a client (a
 * browser app, a test) calls the records and inputs of a resource, with no model file kept beside the declaration.
 */

/** One record as `GET /<resource>/{id}` answers it. */
export type Read<R> = ReadOf<ShapeOf<R>>;
/** One item of `GET /<resource>`. */
export type ListItem<R> = ListItemOf<ShapeOf<R>>;
/** The list criteria (filters, paging, count, sort). */
export type ListInput<R> = CriteriaOf<ShapeOf<R>>;
/** The body of `POST /<resource>`, and what it answers. */
export type CreateInput<R> = CreateOf<ShapeOf<R>>;
export type CreateOutput<R> = CreateOutputOf<ShapeOf<R>>;
/** The body of PUT, and of PATCH (a JSON merge patch). */
export type UpdateInput<R> = UpdateOf<ShapeOf<R>>;
export type PatchInput<R> = PatchInputOf<ShapeOf<R>>;
/** One child of collection `C` as reads answer it, its input, and what its writes answer. */
export type ChildItem<R, C extends keyof ShapeOf<R>['children']> = ChildRead<ShapeOf<R>, C>;
export type ChildInput<R, C extends keyof ShapeOf<R>['children']> = ChildInputOf<ShapeOf<R>, C>;
export type ChildWrite<R, C extends keyof ShapeOf<R>['children']> = ChildWriteOf<ShapeOf<R>, C>;
/** The body of action `A`. */
export type ActionInput<R, A extends keyof ShapeOf<R>['actions']> = ActionInputOf<ShapeOf<R>, A>;
/** The resource's service (the same interface on the server and in its proxy). */
export type Service<R> = ResourceService<ShapeOf<R>>;
