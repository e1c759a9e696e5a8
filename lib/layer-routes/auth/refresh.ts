import { route } from '../../routing/route.js';
import { AuthToken, RefreshInput } from '../../auth/auth-models.js';

export const POST = route({
  summary: 'Exchange an (expired) access token and its refresh token for a new pair; the refresh token rotates.',
  operation: 'ITokenService.refresh',
  variant: 'A',
  anonymous: true,
  body: RefreshInput,
  result: AuthToken,
  // Security_InvalidAccessToken, Security_InvalidRefreshToken.
  answers: [401],
  handle: ({ body, services }) => services.tokens.refresh(body),
});
