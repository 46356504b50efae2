"""Calibrate the relevance cutoff: fused top scores of answerable vs unanswerable questions.

    .venv/bin/python bench/calibrate_cutoff.py
"""
import json
import sys

import numpy as np

sys.path.insert(0,'.')
import tempfile
from pathlib import Path

from assistant.retrieval import HybridRetriever
from assistant.settings import RetrievalSettings
from assistant.types import Filters
from vectorstore.embedders import get_embedder
from vectorstore.ingest import ingest
from vectorstore.store import PaperStore

p=Path(tempfile.mkdtemp())/'store'
import shutil; shutil.rmtree(p, ignore_errors=True)
s=PaperStore(p, get_embedder('minilm')); ingest(s, ['corpus/iclr2026_sample.txt','corpus/icml2026_sample.txt'])
r=HybridRetriever(s, RetrievalSettings(cutoff=0.0))
rows=[json.loads(l) for l in open('bench/questions_dev.jsonl')]
pos=[];neg=[]
for row in rows:
    f=r.retrieve(row['question'],k=5,filters=Filters(),parse_filters=False)
    top=f.results[0]
    if row['type']=='ask':
        gold=[x for x in f.results if row['gold_phrase'].replace('\\\\','\\') in x.paper.abstract]
        g=gold[0] if gold else None
        pos.append((g.score if g else 0, g.dense_score if g else 0, g.lexical_score if g else 0, row['question'][:50]))
    elif row['type']=='unanswerable':
        neg.append((top.score, top.dense_score, top.lexical_score, row['question'][:50]))
q=[json.loads(l) for l in open('../shared/benchmarks/scifact/queries.jsonl')][:300]
sf=[]
for row in q:
    f=r.retrieve(row['text'],k=1,filters=Filters(),parse_filters=False)
    if f.results: sf.append((f.results[0].score,f.results[0].dense_score,f.results[0].lexical_score))
pos.sort(); neg.sort()
print('POS lowest', pos[:8]); print('NEG', neg)
sf=np.array(sf); print('scifact-on-ML fused pct 50/90/95/99/max', np.percentile(sf[:,0],[50,90,95,99,100]).round(3), 'dense', np.percentile(sf[:,1],[50,90,95,99,100]).round(3))
P=np.array([x[:3] for x in pos]); print('pos fused pct 5/10/50', np.percentile(P[:,0],[5,10,50]).round(3), 'dense', np.percentile(P[:,1],[5,10,50]).round(3))
