"""What every request handler of the app shares: settings, the pool, the embedder, lag."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from streams.api.arguments import is_tenant_id
from streams.api.params import ApiError, bad
from streams.api.pipeline_view import LagHistory
from streams.events import TENANT_ID_PATTERN
from streams.model.loader import build_models
from streams.model.ports import Embedder
from streams.pipeline import STAGES
from streams.settings import Settings


@dataclass
class ApiContext:
    settings: Settings
    pool: Any
    group_of: Callable[[str], str]
    lag: LagHistory
    # Built on the first search, so pages that never search need no model configuration.
    embedder_factory: Callable[[Settings], Embedder] = field(
        default=lambda s: build_models(s).embedder
    )
    _embedder: Embedder | None = None

    def embedder(self) -> Embedder:
        if self._embedder is None:
            try:
                self._embedder = self.embedder_factory(self.settings)
            except Exception as exc:  # a provider that cannot be built: say which and why
                raise ApiError(503, f"the configured embedder cannot be built: {exc}") from exc
        return self._embedder


def ctx_of(request: Request) -> ApiContext:
    ctx: ApiContext = request.app.state.ctx
    return ctx


def tenant_of(request: Request) -> tuple[str, str]:
    """The path's tenant, checked as publishers' events are (events.TENANT_ID_PATTERN)."""
    return tenant_of_names(request.path_params["dataset"], request.path_params["project"])


def tenant_of_names(dataset: str, project: str) -> tuple[str, str]:
    for name, value in (("dataset", dataset), ("project", project)):
        if not is_tenant_id(value):
            raise bad(f"{name}: {value!r} is not a tenant id ({TENANT_ID_PATTERN})")
    return dataset, project


def stage_of(request: Request) -> str:
    stage: str = request.path_params["stage"]
    if stage not in STAGES:
        raise ApiError(404, f"no stage {stage!r}; stages are {', '.join(STAGES)}")
    return stage
