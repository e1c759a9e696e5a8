// The guard of Nest's authentication recipe (docs.nestjs.com/security/authentication): the bearer token verified
// with @nestjs/jwt on every request (HS256, issuer and audience checked by the module's verifyOptions).
import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';

interface WithUser {
  headers: Record<string, string | string[] | undefined>;
  user?: unknown;
}

@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly jwtService: JwtService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<WithUser>();
    const token = this.extractTokenFromHeader(request);
    if (!token) throw new UnauthorizedException();
    try {
      request.user = await this.jwtService.verifyAsync(token);
    } catch {
      throw new UnauthorizedException();
    }
    return true;
  }

  private extractTokenFromHeader(request: WithUser): string | undefined {
    const header = request.headers.authorization;
    const [type, token] = typeof header === 'string' ? header.split(' ') : [];
    return type === 'Bearer' ? token : undefined;
  }
}
