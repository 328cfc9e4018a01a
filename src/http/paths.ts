import { PROBLEM_TYPE_BASE } from './problem.js';

/** Where the published API, its documents and its error pages live. */
export const API_PREFIX = '/api-platform/v1';
/** The preview surface (DESIGN.md, "Where things live"): bearer credentials, `{data, meta}` envelope. */
export const V1_PREFIX = '/v1';
/** The OAuth 2.0 authorization server and its two endpoints a client library needs to know. */
export const OAUTH_PREFIX = '/api-platform/oauth';
export const OAUTH_AUTHORIZE_PATH = `${OAUTH_PREFIX}/authorize`;
export const OAUTH_TOKEN_PATH = `${OAUTH_PREFIX}/token`;
export const DOCS_PATH = '/api-platform/docs';
/** The guides of docs/, rendered: `${GUIDES_PATH}/<file name without .md>`. */
export const GUIDES_PATH = `${DOCS_PATH}/guides`;
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
/** the index of error-code pages; each code's page is PROBLEM_TYPE_BASE + code */
export const PROBLEMS_PATH = PROBLEM_TYPE_BASE.slice(0, -1);
/** the request id the documents' examples show */
export const EXAMPLE_REQUEST_ID = 'k3f9a2-1f';
/** The operator's probes and metrics, at the service root (outside the API base). */
export const OPS_PATHS = { health: '/health', ready: '/ready', metrics: '/metrics' } as const;
