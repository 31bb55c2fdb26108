"""Memory files as agents and their people keep them, written for these tests in the styles
found in public repositories: a CLAUDE.md with a rules section, an AGENTS.md, a GEMINI.md in
German, a Japanese CLAUDE.md, Cursor rules (``.mdc`` with front matter, ``.cursorrules``), a
Windsurf and a Cline rules file in Chinese and French, and a Cline memory-bank progress file
whose rules sit in the middle of notes. Each is named by the file name an agent would give it.
"""

from __future__ import annotations

CLAUDE_MD = """\
# CLAUDE.md

This file gives Claude Code guidance for working in this repository: the billing service
(Flask API, Celery workers, Postgres 15) and its Terraform.

## Rules

- Never run `terraform apply` without a plan reviewed in CI.
- Do not edit files under `migrations/`; generate a new migration with `make migration`.
- Always run `make test` before committing.
- Use `uv` for Python dependencies, not pip.
- Only touch `infra/prod` after the change ticket is approved.
- Ask before deleting any branch.
- Keep functions under 50 lines.

## Architecture

The API lives in `app/`, the workers in `worker/`. Postgres holds the ledger; Redis caches
sessions and the rate limiter's counters.

Invoices are rendered by `app/invoices/render.py` from Jinja templates in `templates/`.

## Commands

- `make dev` starts everything with docker compose.
- `make lint` runs ruff and mypy.
- `make seed` loads the demo customers.

## Lessons

- The staging database was wiped by a test run once: tests must use the `test_` schema.
- Mocking `requests` in the invoice tests hid a timeout bug; use `responses` instead.

## Status

Working on the CSV export of invoices. The writer is done, the download endpoint is half done,
and the email with the link is not started.
"""

AGENTS_MD = """\
# AGENTS.md

## Setup

- Install with `pnpm install`; the workspace has three packages (`web`, `api`, `shared`).
- Copy `.env.example` to `.env` and fill in the Stripe test keys.

## Code style

- TypeScript strict mode; prefer `type` over `interface` for unions.
- Avoid default exports.
- Components go in `web/src/components`, one per file.

## Testing

- Run `pnpm test --filter api` for the API; the web tests need `pnpm build` first.
- Snapshots are committed: update them with `pnpm test -u` only when the change is intended.

## Pull requests

- Title format: `[package] short summary`.
- Must pass `pnpm lint` and `pnpm typecheck` before you open one.

## Notes

The `shared` package is published to the internal registry on every tag. The API talks to
Stripe through `api/src/payments/client.ts`; the webhook handler lives beside it.
"""

GEMINI_MD = """\
# Projektkontext

Dieses Repository enthält die Android-App für die Stadtwerke (Kotlin, Jetpack Compose).

## Regeln

- Verwende niemals `GlobalScope` für Koroutinen.
- Neue Bildschirme müssen mit Compose gebaut werden, nicht mit XML-Layouts.
- Schreibe Commit-Nachrichten auf Englisch.

## Architektur

Die App folgt MVVM. ViewModels liegen in `feature/*/ui`, Repositories in `data/`.
Die Zählerstände werden über `MeterApi` gelesen und in Room zwischengespeichert.

## Offene Punkte

- Der Offline-Modus synchronisiert noch nicht zuverlässig.
- Die Barrierefreiheit der Tarifübersicht ist nicht geprüft.
- Die Übersetzungen für Türkisch fehlen.
"""

CLAUDE_JA_MD = """\
# プロジェクト概要

社内向けの勤怠管理システム（Rails 7、PostgreSQL）。

## 絶対禁止

- 本番データベースに直接接続しない
- `db/schema.rb` を手で編集しない

## 必須事項

- すべての公開APIにドキュメントを記載すること
- 変更前に既存テストが通ることを確認すること

## メモ

- 月末の締め処理は `app/jobs/closing_job.rb` で実行される。
- 休暇申請の承認フローは二段階。部長承認のあとに人事が確認する。
- CSVエクスポートは Shift_JIS で出力している。
"""

CURSOR_MDC = """\
---
description: Frontend conventions for the dashboard
globs: src/**/*.tsx
alwaysApply: false
---
# Dashboard frontend

- Use Tailwind classes; do not add new CSS files.
- Every chart must have an accessible label.
- Data fetching goes through the hooks in `src/api/`, never `fetch` in a component.

The dashboard shows usage per team. Charts are drawn with Recharts; the date picker is our
own component in `src/components/DateRange.tsx`.

Dark mode follows the system setting and can be switched in the header.
"""

CURSORRULES = """\
You are an expert in Python, FastAPI and SQLAlchemy.

Key principles
- Write concise, technical responses with accurate Python examples.
- Prefer iteration and modularization over code duplication.
- Use descriptive variable names with auxiliary verbs (is_active, has_permission).

Error handling
- Handle errors and edge cases at the beginning of functions.
- Avoid unnecessary else statements; use the if-return pattern instead.

Project notes
The service stores measurements from 40 weather stations. Ingestion runs every five minutes
from `ingest/cron.py`; the API serves daily aggregates from a materialized view.

The station list is maintained by hand in `stations.yaml`.
"""

WINDSURFRULES = """\
# 项目说明

这是一个微信小程序的后端服务（Go 1.22，Gin，MySQL 8）。

## 规则

- 禁止在代码中硬编码密钥
- 所有接口必须有单元测试
- 不要修改 `vendor/` 目录

## 进度

- 用户登录和注册已完成。
- 订单模块正在开发，支付回调还没有对接。
- 下周开始做数据统计页面。
"""

CLINERULES = """\
# Consignes

## Règles

- Ne jamais pousser directement sur `main`.
- Toujours écrire les messages de commit en français.
- N'utilisez pas `any` dans le code TypeScript.

## Contexte

Application de réservation pour des salles de sport (Next.js, Prisma, PostgreSQL).
Les créneaux sont générés chaque nuit par `scripts/slots.ts`.

## Journal

- Le paiement par carte fonctionne en mode test.
- L'export PDF des factures est terminé.
- La page d'administration des salles reste à faire.
"""

PROGRESS_MD = """\
# Progress

## What works

- Recipe import from URL for the ten most common sites.
- Ingredient parsing with units and fractions.
- Shopping list grouped by aisle.
- Meal plan for a week, dragged and dropped.

## Known issues

- Some recipes with unusual units parse oddly.
- The timer keeps running when the app is in the background on Android.
- Scraped servings can vary significantly.

## Session notes

- Session 12: rewrote the aisle grouping; it now uses the store's own aisle names.
- Session 13: tried caching the parsed recipes in IndexedDB. It does not work in Safari's
  private mode, so the cache is skipped there.
- Session 14: the photo upload goes to S3 through a presigned URL; never store photos in the
  database.
- Session 15: the import of a recipe with two ingredient lists puts both lists in one.
"""

MEMORY_FILES = {
    "CLAUDE.md": CLAUDE_MD,
    "AGENTS.md": AGENTS_MD,
    "GEMINI.md": GEMINI_MD,
    "CLAUDE.ja.md": CLAUDE_JA_MD,
    "dashboard.mdc": CURSOR_MDC,
    ".cursorrules": CURSORRULES,
    ".windsurfrules": WINDSURFRULES,
    ".clinerules": CLINERULES,
    "progress.md": PROGRESS_MD,
}
