// The NestJS peer: one process per bench target, on the Fastify or the Express adapter (ADAPTER), logging nothing
// per request (Nest's logger keeps errors and warnings only; Nest has no request log of its own).
import 'reflect-metadata';
import { type LogLevel, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module';
import { settings } from './settings';

const logger: LogLevel[] = ['error', 'warn'];

async function bootstrap() {
  const app = settings.adapter === 'fastify'
    ? await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), { logger })
    : await NestFactory.create(AppModule, { logger });
  app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true }));
  await app.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
  const address = app.getHttpServer().address() as AddressInfo;
  process.stdout.write(`peer is serving http://${address.address}:${address.port}\n`);
}

process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
void bootstrap();
