// project_text, project_template and project_bytes: content from a file of
// the config's project, read when zap-eval evaluates the config.

import type { BytesContent, InlineContent, TemplateContent } from './types.ts';

/** The hook zap-eval installs: it reads the file, inside the project only,
 * relative to the module that called the helper, and makes the content. */
const READ = Symbol.for('zap.project_file');

type Form = 'text' | 'template' | 'bytes';

function read(): (path: string, form: Form) => unknown {
	const hook = (globalThis as unknown as Record<symbol, unknown>)[READ];
	if (typeof hook !== 'function') {
		throw new Error('a project file is read only when zap-eval evaluates the config');
	}
	return hook as (path: string, form: Form) => unknown;
}

/**
 * Inline content read from a text file of the project, placed as the file
 * holds it. `path` is relative to the module that calls this, starting ./
 * or ../, as an import is: `content: project_text('./files/motd.txt')`.
 * The file must be UTF-8 with no NUL (else use project_bytes), a regular
 * file inside the project (no .. or symbolic link out of it, no fifo or
 * device) of 4 MiB at most. A file that can't be read fails the evaluation
 * at this call. The declaration carries the text and the file's path, so
 * editing the file is a change the next plan shows.
 */
export function project_text(path: string): InlineContent {
	return read()(path, 'text') as InlineContent;
}

/**
 * Template content whose body is read from a text file of the project:
 * `{{name}}` placeholders, filled from `vars` by the rules of a template
 * written inline (every placeholder needs a variable, every variable a
 * placeholder; `kinds` holds a variable's value to a form). The path is
 * read as project_text's is.
 */
export function project_template(path: string, opts: Pick<TemplateContent, 'vars' | 'kinds'> = {}): TemplateContent {
	const c = read()(path, 'template') as TemplateContent;
	return { ...c, vars: opts.vars, kinds: opts.kinds };
}

/**
 * A project file's bytes, placed byte for byte: an image, an archive, a
 * keyring. The path is read as project_text's is; the declaration carries
 * the bytes (base64) and the file's path.
 */
export function project_bytes(path: string): BytesContent {
	return read()(path, 'bytes') as BytesContent;
}
