// Config files kept in the project beside zap.ts and placed by Zap: a text
// file as it is, a template whose body is a file, and a binary file. Each
// is read when the config is evaluated, inside the project only, and the
// declaration carries the bytes, so an edit of the file is a change the
// next plan shows (docs/files.md). Type-checked by `make typecheck`.
import type { Builder } from '@zap-go/zap';
import { project_text } from '@zap-go/zap';
import { web } from './roles/web.ts';

export default (zap: Builder) => {
	zap.target({ local: true });
	zap.file({ id: 'motd', path: '/etc/motd', mode: '644', content: project_text('./files/motd.txt') });
	web(zap, 'example.org');
};
