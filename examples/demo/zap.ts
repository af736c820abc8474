// The demo: a small corner of your own home directory, described in full.
// Everything here belongs to you, so no step needs sudo, and the target is
// this machine, so nothing needs SSH.
//
// The import is type-only: zap-eval strips it, so it needs nothing installed
// (and zap-eval carries @zap-go/zap anyway). Your editor reads it for
// completion, and `make typecheck` checks this file against it.
import type { Builder } from '@zap-go/zap';

const DIR = '~/zap-demo';

export default (zap: Builder) => {
	zap.target({local: true});

	zap.directory({id: 'demo-dir', path: DIR, mode: '755'});

	zap.file({
		id: 'hello',
		path: `${DIR}/hello.txt`,
		content: {type: 'inline', content: 'hello from zap\n'},
		mode: '644',
		depends_on: ['demo-dir'],
	});

	zap.link({
		id: 'current',
		path: `${DIR}/current`,
		target: 'hello.txt',
		depends_on: ['hello'],
	});

	// A script is only as idempotent as its check: this one runs once,
	// then its check passes on every later run.
	zap.script({
		id: 'stamp',
		check: `test -s ${DIR}/stamp`,
		run: `wc -c < ${DIR}/hello.txt > ${DIR}/stamp`,
		cwd: '/',
		depends_on: ['hello'],
	});
};
