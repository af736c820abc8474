// @zap-go/zap: the builder's types for a config's type checking and editor
// completion, and env_ref. Recipes arrive under recipes/ in a later issue.

export type * from './types.ts';
export { env_ref } from './env_ref.ts';
