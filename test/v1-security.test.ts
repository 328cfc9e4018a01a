import { testDialects } from './helpers/db.js';
import { tokenTableTarget, v1SecuritySuite } from './helpers/v1-security.js';

// Every /v1 route of the app, including routes added after this file was written.
for (const dialect of testDialects()) v1SecuritySuite(dialect, () => tokenTableTarget(dialect));
