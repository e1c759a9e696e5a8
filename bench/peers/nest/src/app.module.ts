import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import type Database from 'better-sqlite3';
import { AuthGuard } from './auth.guard';
import { Customer } from './customer.entity';
import { LookupController } from './lookup.controller';
import { Product } from './product.entity';
import { SalesOrderDetail } from './sales-order-detail.entity';
import { SalesOrderStatus } from './sales-order-status.entity';
import { SalesOrderController } from './sales-order.controller';
import { SalesOrder } from './sales-order.entity';
import { SalesOrderService } from './sales-order.service';
import { isPostgres, settings } from './settings';

const entities = [SalesOrder, Customer, SalesOrderStatus, SalesOrderDetail, Product];

// The database restlayer made (its own SQLite copy, or the shared PostgreSQL database): never synchronised; no query
// log unless NEST_PEER_SQL_LOG=1 (to see the statements TypeORM sends, README "What each side does per request").
const logging = process.env.NEST_PEER_SQL_LOG === '1';
const database: TypeOrmModuleOptions = isPostgres
  ? { type: 'postgres', url: settings.postgresUrl, entities, synchronize: false, logging }
  : {
      type: 'better-sqlite3', database: settings.sqlitePath, entities, synchronize: false, logging,
      // The file is in WAL mode already (restlayer set it); commit as durably as restlayer does.
      prepareDatabase: (db: Database.Database) => {
        db.pragma('synchronous = FULL');
      },
    };

@Module({
  imports: [
    TypeOrmModule.forRoot(database),
    TypeOrmModule.forFeature(entities),
    JwtModule.register({
      secretOrKeyProvider: () => settings.jwtKey,
      verifyOptions: { algorithms: ['HS256'], issuer: settings.jwtIssuer, audience: settings.jwtAudience },
    }),
  ],
  controllers: [LookupController, SalesOrderController],
  // The guard on every route (Nest's "enable authentication globally" recipe).
  providers: [SalesOrderService, { provide: APP_GUARD, useClass: AuthGuard }],
})
export class AppModule {}
