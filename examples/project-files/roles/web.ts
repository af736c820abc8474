// A role module in a subfolder: the files it names sit beside it, and it
// names them relative to itself, as it would import a module.
import type { Builder } from '@zap-go/zap';
import { project_bytes, project_template } from '@zap-go/zap';

export function web(zap: Builder, domain: string): void {
	zap.file({
		id: 'nginx-site',
		path: `/etc/nginx/sites-enabled/${domain}`,
		mode: '644',
		// The body is roles/site.conf; {{domain}} is filled as in any
		// template, and held to a DNS name.
		content: project_template('./site.conf', { vars: { domain }, kinds: { domain: 'domain' } }),
	});
	zap.file({
		id: 'favicon',
		path: `/var/www/${domain}/favicon.png`,
		mode: '644',
		// A binary file, placed byte for byte.
		content: project_bytes('../files/favicon.png'),
	});
}
