import {
  addSuppressionsRequestSchema,
  importSuppressionsQuerySchema,
  MAX_SUPPRESSION_CSV_BYTES,
  MAX_SUPPRESSION_IMPORT_ROWS,
  MAX_SUPPRESSIONS_PER_REQUEST,
  SUPPRESSION_SCOPES,
  suppressionsFilterSchema,
  suppressionsQuerySchema,
} from '@fairlane/core'
import { z } from 'zod'
import { json, responses } from '../v1/openapi/operation-helpers'
import {
  suppressionImportResponse,
  suppressionRemovedResponse,
  suppressionsAddedResponse,
  suppressionsPageResponse,
} from '../v1/responses'
import {
  deleteSuppression,
  getSuppressions,
  getSuppressionsExport,
  postSuppressions,
  postSuppressionsImport,
} from '../v1/suppressions'
import { declareRoute } from './define'

const requestSchemas = { suppressions: addSuppressionsRequestSchema.meta({ id: 'AddSuppressionsRequest' }) }

/** The suppression list: entries, and the list as CSV (import a text/csv body, export a download). */
export const suppressionRoutes = {
  listSuppressions: declareRoute({
    method: 'GET',
    path: '/api/v1/suppressions',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getSuppressions(request, deps.api),
    openapi: {
      operationId: 'listSuppressions',
      tags: ['Suppressions'],
      summary: 'List suppressed addresses',
      description:
        'In address order, paged with `cursor` (the `nextCursor` of the page before; anything else is a 400 naming `cursor`). `email` finds the addresses containing it, any case (`example.com`: everyone at that domain); filter by `reason` or `scope`. An unknown parameter is a 400 naming it.',
      requestParams: { query: suppressionsQuerySchema },
      responses: responses({ '200': json(suppressionsPageResponse, 'A page of entries') }, [400, 401, 429]),
    },
  }),
  addSuppressions: declareRoute({
    method: 'POST',
    path: '/api/v1/suppressions',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => postSuppressions(request, deps.api),
    openapi: {
      operationId: 'addSuppressions',
      tags: ['Suppressions'],
      summary: 'Suppress addresses',
      description: `Up to ${MAX_SUPPRESSIONS_PER_REQUEST.toLocaleString('en')} addresses a call, as manual entries (reason \`manual\`) with an optional \`detail\`; \`scope\` defaults to \`all\` (every lane). An address already listed keeps its entry, widened to \`all\` if that is asked.`,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: requestSchemas.suppressions,
            examples: {
              manual: {
                summary: 'Two addresses, every lane',
                value: { emails: ['ada@example.com', 'grace@example.com'] },
              },
              marketing: {
                summary: 'Campaign mail only',
                value: { emails: ['ada@example.com'], scope: 'marketing' },
              },
              detail: {
                summary: 'With a note',
                value: { emails: ['ada@example.com'], detail: 'Asked by phone not to be mailed' },
              },
            },
          },
        },
      },
      responses: responses(
        { '200': json(suppressionsAddedResponse, 'Each address’s entry') },
        [400, 401, 413, 415, 429],
      ),
    },
  }),
  removeSuppression: declareRoute({
    method: 'DELETE',
    path: '/api/v1/suppressions/:email',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, { email }, deps) => deleteSuppression(request, email, deps.api),
    openapi: {
      operationId: 'removeSuppression',
      tags: ['Suppressions'],
      summary: 'Lift a suppression',
      description:
        'The address may be mailed again, and its soft-bounce count starts again from nothing. With `scope`, only an entry of that scope is lifted. Answers the entry removed (its `reason` and `detail` say why it was there). Another tenant’s address, like one not listed, is a 404. A contact who unsubscribed stays unsubscribed until the contact page’s audited resubscribe.',
      requestParams: {
        path: z.object({
          email: z.string().meta({ description: 'The address (URL-encoded)', example: 'ada@example.com' }),
        }),
        query: z.object({ scope: z.enum(SUPPRESSION_SCOPES).optional() }),
      },
      responses: responses({ '200': json(suppressionRemovedResponse, 'Lifted') }, [400, 401, 404, 429]),
    },
  }),
  // A CSV of up to MAX_SUPPRESSION_CSV_BYTES: the import cap, not the API's 1 MB.
  importSuppressions: declareRoute({
    method: 'POST',
    path: '/api/v1/suppressions/import',
    scope: 'full',
    bodyLimit: 'suppressionsImport',
    handle: (request, _, deps) => postSuppressionsImport(request, deps.api),
    openapi: {
      operationId: 'importSuppressions',
      tags: ['Suppressions'],
      summary: 'Import addresses from CSV',
      description: [
        `A \`text/csv\` body (UTF-8, at most ${MAX_SUPPRESSION_CSV_BYTES / (1024 * 1024)} MB and ${MAX_SUPPRESSION_IMPORT_ROWS.toLocaleString('en')} rows; commas, semicolons or tabs):`,
        'a header row with an `email` column and optionally a `detail` column (other columns are ignored, so this list’s export imports again),',
        'or no header and one address per line. Every address becomes a manual entry (`scope` as for `POST /api/v1/suppressions`).',
        'Rows that cannot be imported are answered in `rejected` with their line number (the first line is 1) and the reason; the rest are imported.',
        'A header with no email column is a 400 naming `header`.',
      ].join(' '),
      requestParams: { query: importSuppressionsQuerySchema },
      requestBody: {
        required: true,
        content: {
          'text/csv': {
            schema: z.string(),
            example: 'email,detail\r\nada@example.com,Asked by phone\r\ngrace@example.com,\r\n',
          },
        },
      },
      responses: responses(
        { '200': json(suppressionImportResponse, 'What was imported, and every row that was not') },
        [400, 401, 413, 415, 429],
      ),
    },
  }),
  exportSuppressions: declareRoute({
    method: 'GET',
    path: '/api/v1/suppressions/export',
    scope: 'full',
    bodyLimit: 'api',
    handle: (request, _, deps) => getSuppressionsExport(request, deps.api),
    openapi: {
      operationId: 'exportSuppressions',
      tags: ['Suppressions'],
      summary: 'Export the list as CSV',
      description:
        "Every entry matching the filters (as for the list), in address order, as `text/csv` with the columns `email`, `reason`, `scope`, `detail`, `created_at`. A cell starting with `=`, `+`, `-` or `@` gets a leading `'` so a spreadsheet does not run it; the import takes it off again.",
      requestParams: { query: suppressionsFilterSchema },
      responses: responses(
        {
          '200': {
            description: 'The CSV file (a download)',
            content: { 'text/csv': { schema: z.string() } },
          },
        },
        [400, 401, 429],
      ),
    },
  }),
}
