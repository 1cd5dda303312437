// The framework ceiling of bench/run.mjs: a minimal NestJS app on the same Fastify
// adapter as Guildhall, with one guard, one interceptor and one route answering a fixed JSON body.
// Plain JavaScript (no compile step): decorators are applied with Reflect.decorate.
//
//   PORT=8799 node bench/ceilings/minimal-nest-app.mjs      # prints "listening <port>" once ready
//
// It reads PORT (default 8799) and stops on SIGTERM / SIGINT.
import 'reflect-metadata';
import { Controller, Get, Injectable, Module, UseGuards, UseInterceptors } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

const BODY = Object.freeze({ allowed: true, source: 'role', viaRoleId: '01900000-0000-7000-8000-000000000001' });

/** Lets a request through when it carries an Authorization header (a stand-in for the key check). */
class HeaderGuard {
  canActivate(context) {
    const req = context.switchToHttp().getRequest();
    return typeof req.headers.authorization === 'string';
  }
}
Reflect.decorate([Injectable()], HeaderGuard);

/** Passes the handler's result through untouched (a stand-in for the logging interceptor). */
class PassThroughInterceptor {
  intercept(_context, next) {
    return next.handle();
  }
}
Reflect.decorate([Injectable()], PassThroughInterceptor);

class BenchController {
  check() {
    return BODY;
  }
}
Reflect.defineProperty(
  BenchController.prototype,
  'check',
  Reflect.decorate([Get('check')], BenchController.prototype, 'check', Object.getOwnPropertyDescriptor(BenchController.prototype, 'check')),
);
const DecoratedController = Reflect.decorate(
  [Controller('v1/permissions'), UseGuards(HeaderGuard), UseInterceptors(PassThroughInterceptor)],
  BenchController,
);

class BenchModule {}
const DecoratedModule = Reflect.decorate(
  [Module({ controllers: [DecoratedController], providers: [HeaderGuard, PassThroughInterceptor] })],
  BenchModule,
);

const port = Number(process.env.PORT ?? 8799);
const app = await NestFactory.create(DecoratedModule, new FastifyAdapter({ logger: false }), { logger: ['error'] });
app.enableShutdownHooks();
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`listening ${port}\n`);
