// placed: the file resource a recipe returns (a template or an inline file it
// wrote), shared by the recipes that let the caller name its id and its edges.

import type { FileSpec } from './types.ts';

/** What a recipe's caller may say of the file resource it returns. */
export interface PlacedOptions {
	id?: string;
	depends_on?: string[];
	triggers?: string[];
}

/** The file resource: its id (the default id unless o names one), the
 * fields the recipe decided, and o's depends_on and triggers (copied, so the
 * caller's lists stay theirs). */
export function placed(o: PlacedOptions, id: string, file: Omit<FileSpec, 'id'>): FileSpec {
	const spec: FileSpec = { id: o.id ?? id, ...file };
	if (o.depends_on !== undefined) {
		spec.depends_on = [...o.depends_on];
	}
	if (o.triggers !== undefined) {
		spec.triggers = [...o.triggers];
	}
	return spec;
}
