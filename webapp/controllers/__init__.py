"""Controllers: turn request arguments into domain parameters, call the service, return data + status.

They know nothing about HTML or JSON rendering; routes decide how to present what they return.
"""
