// @zap-go/zap: the builder's types for a config's type checking and editor
// completion, env_ref, content from the project's files (project_text,
// project_template, project_bytes), and the shell quoting recipes use. The recipes
// themselves are imported by their full paths, such as
// '@zap-go/zap/recipes/nginx.ts'.

export type * from './types.ts';
export { env_ref, has_ref } from './env_ref.ts';
export { project_bytes, project_template, project_text } from './project.ts';
export { single_quote, sudo_as_user } from './shell.ts';
