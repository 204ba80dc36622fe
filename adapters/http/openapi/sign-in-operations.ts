import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { SIGN_IN_CALLBACK_PATH, SIGN_IN_PATH } from '../admin-sign-in-routes.js';
import type { AdminDocumentParts } from './admin-operations.js';

/** The operators' OpenID Connect sign-in (admin-sign-in-routes.ts) in the document: a redirect, then the way back. */
export function signInPaths(parts: AdminDocumentParts): Record<string, { get: ZodOpenApiOperationObject }> {
  const { '200': _ok, ...startErrors } = parts.responses('adminSignIn', parts.ok(z.null(), 'unused'));
  const redirect: ZodOpenApiResponseObject = {
    description: "To the identity provider's authorization endpoint (the code flow with PKCE, S256); the cookie `wallet_vault_oidc` keeps the state, nonce and code verifier for the way back.",
    headers: z.object({ Location: z.string().meta({ description: "The identity provider's authorization URL." }), 'Set-Cookie': z.string() }),
  };
  const signedIn = z.object({
    operator: z.object({ name: z.string(), roles: z.array(z.string()), vaults: z.array(z.string()).nullable() }),
    token: z.string().meta({ description: "The provider's ID token: `Authorization: Bearer <token>` on the admin API until `expires`." }),
    tokenType: z.literal('Bearer'),
    expires: z.string().meta({ description: 'ISO 8601: the token\'s `exp`.' }),
  });
  return {
    [SIGN_IN_PATH]: {
      get: {
        operationId: 'adminSignIn',
        summary: 'Sign in through the identity provider',
        description:
          'Sends the browser to the OpenID Connect provider of `VAULT_OIDC_ISSUER` (docs/operators.md, "Sign-in with OpenID Connect"). Needs `VAULT_OIDC_ISSUER`, `VAULT_OIDC_CLIENT_ID` and `VAULT_PUBLIC_URL` (else 503 `OIDC_UNAVAILABLE`).',
        tags: ['Admin'],
        security: [],
        responses: { '302': redirect, ...startErrors },
      } as ZodOpenApiOperationObject,
    },
    [SIGN_IN_CALLBACK_PATH]: {
      get: {
        operationId: 'adminSignInCallback',
        summary: 'The way back from the identity provider',
        description:
          "Redeems the provider's code (state, nonce and PKCE verifier of the cookie checked, the client's secret sent), checks the ID token (signature by the provider's JWKS, issuer, audience, expiry) and finds the operator its `VAULT_OIDC_OPERATOR_CLAIM` claim names (default `email`, lower-cased: an operator made beforehand with that name). Audited `operator.signed-in`. A refused or mismatched answer, or a claim that names no operator: 401.",
        tags: ['Admin'],
        security: [],
        responses: parts.responses(
          'adminSignInCallback',
          parts.ok(signedIn, 'Signed in', {
            operator: { name: 'alice@example.com', roles: ['vault-admin'], vaults: null },
            token: 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJodHRwczovL2xvZ2luLmV4YW1wbGUuY29tIn0.c2lnbmF0dXJl',
            tokenType: 'Bearer',
            expires: '2026-12-03T10:00:00.000Z',
          }),
        ),
      } as ZodOpenApiOperationObject,
    },
  };
}
