"""Helpers of the search service tests (test_search_service_*.py): the crafted papers their alias holds besides
the sample (the alias itself: tests/integration/conftest.py), and searching with SearchParams."""

from __future__ import annotations

import json

from support import SAMPLE

from webapp.domain import SearchParams
from webapp.services.search import SearchService

CRAFTED = [
    {"id": "t-script", "title": "Robust parsing of untrusted markup",
     "abstract": "We show that <script>alert(1)</script> payloads in abstracts are harmless once escaped.",
     "authors": ["Søren Hauberg", "Ada Lovelace"], "year": 2021, "venue": "ICLR",
     "topic_area": "Social Aspects", "topic_subarea": "Security"},
    {"id": "t-llm-zh", "title_zh": "大语言模型的推理加速方法",
     "abstract_zh": "本文研究大语言模型在推理阶段的加速，提出一种新的解码策略。",
     "authors": ["李明", "王芳"], "year": 2024,
     "topic_area": "Deep Learning", "topic_subarea": "Large Language Models"},
    {"id": "t-cv-zh", "title_zh": "基于计算机视觉的图像去雨方法",
     "abstract_zh": "我们提出一种用于单幅图像去雨的网络。", "authors": ["张伟"], "year": 2023,
     "topic_area": "Applications", "topic_subarea": "Computer Vision"},
    {"id": "t-graph", "title": "Zebra graphs as sparse models of molecules",
     "abstract": "Sparse graphs describe molecules well; we fit such models with a message passing network.",
     "authors": ["Grace Hopper"], "year": 2019, "venue": "NeurIPS", "topic_area": "Deep Learning",
     "topic_subarea": "Attention Mechanisms"},
    {"id": "t-mixed", "title": "Multilingual retrieval benchmark", "title_zh": "多语言检索基准",
     "abstract": "We evaluate retrieval of academic papers across languages.",
     "abstract_zh": "我们评估跨语言的学术论文检索。", "authors": ["Alan Turing"], "year": 2022, "venue": "ICLR",
     "topic_area": "General Machine Learning", "topic_subarea": "Evaluation"},
    {"id": "t-aardvark", "title": "Aardvark: an alphabetically early title about optimisation",
     "abstract": "A note on convergence of gradient descent.", "authors": ["Grace Hopper"], "year": 2020,
     "venue": "ICML",
     "topic_area": "Optimization"},
    # Issue 44.4, 44.8: TeX letters, a name beside a commoner word one edit away, a concept in Chinese.
    {"id": "t-math", "title": "Sparse $\\ell_1$ penalties and the $\\alpha$-divergence of quokka models",
     "abstract": "We study $\\ell_1$ regularization of quokka estimators, with hints.", "authors": ["Geoffrey Hinton"],
     "topic_area": "Probabilistic Methods"},  # no year nor venue: the facet tests count the others
    {"id": "t-hints", "title": "Hints for wombat keepers", "abstract": "A few hints about wombats.",
     "authors": ["Mary Somerville"], "topic_area": "Applications"},
    {"id": "t-rl-zh", "title_zh": "强化学习的袋熊策略", "abstract_zh": "我们用强化学习训练袋熊。", "authors": ["赵敏"],
     "topic_area": "Reinforcement Learning"},
]


def _records() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()] + CRAFTED


def search(service: SearchService, **kwargs):
    return service.search(SearchParams(**kwargs))


def ids(result) -> list[str]:
    return [h.id for h in result.hits]


def big(**kwargs) -> SearchParams:
    return SearchParams(size=100, **kwargs)
